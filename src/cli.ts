import { parseArgs } from 'node:util';
import { PROJECTIONS } from '../projections/index.js';
import { ConfigError, loadConfig } from './config/config.js';
import { comparePositions, formatPosition } from './core/events.js';
import { migrate } from './infrastructure/database/migrate.js';
import { createLogger } from './infrastructure/logging/logger.js';
import { createEventStore, openDatabase } from './infrastructure/runtime/runtime.js';
import { parseScopes, SCOPES } from './modules/identity/api-key.js';
import { ensureUser, issueApiKey } from './modules/identity/identity.store.js';

const USAGE = `Usage: ledgerline <command> [options]

Commands:
  users create --email E [--name N]              create a user (or show the existing one)
  api-keys create --email E [--scopes read,write] [--name N]
                                                 issue an API key (creates the user if missing);
                                                 the key is printed alone on the last line
  migrate                                        apply migrations and prepare projections
  projections list                               every projection with its version
  projections status                             position, events applied and lag of each

Uses the service's configuration: DATABASE_URL, or the embedded PostgreSQL under DATA_DIR
(shared with a running service).`;

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { email: { type: 'string' }, name: { type: 'string' }, scopes: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
  const command = positionals.join(' ');
  if (values.help || !command) {
    console.log(USAGE);
    return values.help ? 0 : 2;
  }
  const known = ['users create', 'api-keys create', 'migrate', 'projections list', 'projections status'];
  if (!known.includes(command)) {
    console.error(`Unknown command "${command}".\n\n${USAGE}`);
    return 2;
  }
  if (command === 'projections list') {
    for (const projection of PROJECTIONS) console.log(`${projection.name}\tversion ${projection.version}\ttables ${projection.tables.join(', ')}`);
    return 0;
  }
  const email = values.email?.trim();
  if ((command === 'users create' || command === 'api-keys create') && (!email || !/^[^\s@]+@[^\s@]+$/.test(email))) {
    console.error('--email is required and must be an email address.');
    return 2;
  }
  const scopes = values.scopes === undefined ? [...SCOPES] : parseScopes(values.scopes);

  const config = loadConfig();
  const log = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel, process.stderr);
  const { connection, embedded } = await openDatabase(config, log, 4);
  try {
    await migrate(connection.db, PROJECTIONS);
    switch (command) {
      case 'migrate':
        console.log('Migrations applied; projections prepared.');
        return 0;
      case 'users create': {
        const { user, created } = await ensureUser(connection.db, email as string, values.name ?? null);
        console.log(`${created ? 'Created' : 'Exists'}: user ${user.id} <${user.email}>`);
        return 0;
      }
      case 'api-keys create': {
        const { user } = await ensureUser(connection.db, email as string, values.name ?? null);
        const issued = await issueApiKey(connection.db, user.id, values.name ?? 'command line', scopes, new Date());
        console.log(`API key ${issued.id} for ${user.email} (scopes: ${issued.scopes.join(', ')}). It is shown once; store it now:`);
        console.log(issued.key);
        return 0;
      }
      case 'projections status': {
        const store = createEventStore(config, connection);
        try {
          const head = await store.headPosition();
          const rows = await connection.db.selectFrom('projection_checkpoints').selectAll().orderBy('name').execute();
          console.log(`head ${formatPosition(head)}`);
          for (const row of rows) {
            const position = { commit: BigInt(row.position_commit), prepare: BigInt(row.position_prepare) };
            const behind = comparePositions(position, head) < 0;
            const lag = behind ? await store.readAll({ after: position, maxCount: 100_000 }).then((events) => events.length) : 0;
            console.log(`${row.name}\tversion ${row.version}\tposition ${formatPosition(position)}\tapplied ${row.events_applied}\tlag ${lag}${lag === 100_000 ? '+' : ''} events\tupdated ${row.updated_at.toISOString()}`);
          }
        } finally {
          await store.close();
        }
        return 0;
      }
      default:
        return 2;
    }
  } finally {
    await connection.close();
    await embedded?.stop();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof ConfigError || error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
