import { userInfo } from 'node:os';
import { parseArgs } from 'node:util';
import { PROJECTIONS } from '../projections/index.js';
import { ConfigError, loadConfig } from './config/config.js';
import { migrate } from './infrastructure/database/migrate.js';
import { createLogger } from './infrastructure/logging/logger.js';
import { projectionSchema } from './infrastructure/projections/projection.js';
import { refuseUnmigrated, retryParked, showParkedEvents, showProjectionStatus, skipParked } from './infrastructure/projections/projection-commands.js';
import { auditVerifyCommand, rebuildCommand } from './infrastructure/projections/rebuild-commands.js';
import { PROJECTION_WRITER_APPLICATION } from './infrastructure/event-store/feed-horizon.js';
import { createEventStore, openDatabase, startEventStore } from './infrastructure/runtime/runtime.js';
import { systemClock } from './core/clock.js';
import { importCommand } from './modules/imports/statement-import.command.js';
import { DEFAULT_API_KEY_SCOPES, parseScopes } from './modules/identity/api-key.js';
import { ensureUser, issueApiKey } from './modules/identity/identity.store.js';
import { auditTransactionCommand } from './modules/transactions/audit/audit-transaction.command.js';
import { openEventLog } from './infrastructure/event-store/open-event-log.js';
import { chainBackfillCommand } from './modules/audit/chain/chain-backfill.command.js';
import { verifyChainCommand } from './modules/audit/chain/verify-chain.command.js';
import { transactionAsOfCommand } from './modules/audit/as-of/transaction-as-of.command.js';
import { exportCommand } from './modules/audit/export/export.command.js';

const USAGE = `Usage: ledgerline <command> [options]

Commands:
  users create --email E [--name N]              create a user (or show the existing one)
  api-keys create --email E [--scopes read,write,keys] [--name N]
                                                 issue an API key (creates the user if missing);
                                                 the key is printed alone on the last line
  migrate                                        apply migrations and prepare projections
  projections list                               every projection with its version and tables
  projections status                             each version: building/live/superseded, position,
                                                 events applied, lag and parked events
  projections parked [--all]                     events a projection could not apply and moved past
                                                 (--all: retried and skipped ones too)
  projections retry <projection> [--position P] [--by NAME]
                                                 re-apply its parked events (all, or the one at P)
                                                 with this release's code; success marks them retried
  projections skip <projection> --position P [--by NAME]
                                                 leave the event at P out of the read model, on record
                                                 (who: --by, else $USER; when: now)
  projections rebuild <projection>...|--all      replay the event store into shadow tables while the
                                                 live ones serve, then switch at once; resumes where a
                                                 killed rebuild stopped; progress on stderr
  audit verify [--projection P] [--json]         each read model's tables against a replay of the event
                                                 store (rows and checksums): exit 0 all agree, 1 not
  audit verify --chain [--json]                  every stream's hash chain, with a progress bar on stderr;
                                                 names the first event that does not follow in each
                                                 broken stream: exit 0 intact, 1 broken or not chained yet
  audit chain                                    give the events stored before the hash chain their
                                                 hashes (PostgreSQL); resumes where a stopped run was
  import <accountId> <file> [--format csv|ofx] [--dry-run] [--date-format F] [--decimal-comma]
         [--charset C] [--date-column C] [--amount-column C] [--debit-column C] [--credit-column C]
         [--name-column C] [--notes-column C]
                                                 import a bank statement (CSV, or OFX/QFX) into a manual
                                                 account, as POST /accounts/{id}/imports does, run here
                                                 with a progress bar on stderr; run again, it imports
                                                 only rows not imported yet. Exit 0: every row read,
                                                 1: a row failed or the file was refused
  audit transaction <id> [--json]                every event of the transaction's own stream (who, when,
                                                 request, correlation, causation; each field before →
                                                 after) and whether the read models agree with it:
                                                 exit 0 they agree, 1 they do not, lag, or no such id
  audit transaction <id> --as-of <timestamp>     the transaction as it stood at that instant (ISO 8601
                                                 with its offset), as GET /v1/transactions/{id}?asOf=
                                                 answers it: exit 0 shown, 1 it did not exist then
  export --email E > file                        one user's whole history as NDJSON, as GET /v1/export
                                                 gives it (every event of their streams, in order)

Positions are commit/prepare, as \`projections parked\` prints them. Only migrate, users create and
api-keys create migrate the database; the other commands refuse to run on one that is not migrated.
Uses the service's configuration: DATABASE_URL, or the embedded PostgreSQL under DATA_DIR
(shared with a running service).`;

/** Commands that may apply migrations; every other one leaves the schema to the operator. */
const MIGRATING = new Set(['users create', 'api-keys create', 'migrate']);

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      email: { type: 'string' },
      name: { type: 'string' },
      scopes: { type: 'string' },
      position: { type: 'string' },
      by: { type: 'string' },
      all: { type: 'boolean' },
      projection: { type: 'string' },
      json: { type: 'boolean' },
      chain: { type: 'boolean' },
      'as-of': { type: 'string' },
      format: { type: 'string' },
      'dry-run': { type: 'boolean' },
      'date-format': { type: 'string' },
      'decimal-comma': { type: 'boolean' },
      charset: { type: 'string' },
      'date-column': { type: 'string' },
      'amount-column': { type: 'string' },
      'debit-column': { type: 'string' },
      'credit-column': { type: 'string' },
      'name-column': { type: 'string' },
      'notes-column': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  // `projections retry <projection>`, `projections skip <projection>` and `audit transaction <id>` take one argument.
  const takesArgument = (positionals[0] === 'projections' && (positionals[1] === 'retry' || positionals[1] === 'skip')) || (positionals[0] === 'audit' && positionals[1] === 'transaction');
  // `projections rebuild` takes any number of projection names.
  const takesNames = positionals[0] === 'projections' && positionals[1] === 'rebuild';
  // `import <accountId> <file>` takes two.
  const importing = positionals[0] === 'import';
  const command = importing ? 'import' : positionals.slice(0, takesArgument || takesNames ? 2 : undefined).join(' ');
  const argument = takesArgument ? positionals[2] : undefined;
  if (values.help || !command) {
    console.log(USAGE);
    return values.help ? 0 : 2;
  }
  const known = ['users create', 'api-keys create', 'migrate', 'projections list', 'projections status', 'projections parked', 'projections retry', 'projections skip', 'projections rebuild', 'audit verify', 'audit chain', 'audit transaction', 'import', 'export'];
  if (!known.includes(command) || positionals.length > (takesArgument || importing ? 3 : positionals.length)) {
    console.error(`Unknown command "${positionals.join(' ')}".\n\n${USAGE}`);
    return 2;
  }
  if (command === 'projections list') {
    for (const projection of PROJECTIONS) {
      const schema = projectionSchema(projection);
      console.log(`${projection.name}\tversion ${projection.version}\ttables ${projection.tables.map((table) => `${schema}.${table}`).join(', ')}`);
    }
    return 0;
  }
  const email = values.email?.trim();
  if ((command === 'users create' || command === 'api-keys create') && (!email || !/^[^\s@]+@[^\s@]+$/.test(email))) {
    console.error('--email is required and must be an email address.');
    return 2;
  }
  const scopes = values.scopes === undefined ? [...DEFAULT_API_KEY_SCOPES] : parseScopes(values.scopes);

  const config = loadConfig();
  const log = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel, process.stderr);
  // A command that writes read models (rebuild, retry, verify's scratch copy) does it as a projection writer: the feed does not wait behind its batches.
  // So does `audit chain`, which fills in hashes of stored events and never appends.
  const writesReadModels = ['projections rebuild', 'projections retry', 'audit verify', 'audit chain'].includes(command);
  const { connection, embedded } = await openDatabase(config, log, 4, writesReadModels ? PROJECTION_WRITER_APPLICATION : undefined);
  const out = { log: (line: string) => console.log(line), error: (line: string) => console.error(line) };
  const by = values.by?.trim() || operatorName();
  try {
    if (MIGRATING.has(command)) await migrate(connection.db, PROJECTIONS);
    else if (await refuseUnmigrated(connection.db, out)) return 1;
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
          return await showProjectionStatus(connection.db, store, PROJECTIONS, out);
        } finally {
          await store.close();
        }
      }
      case 'projections parked':
        return await showParkedEvents(connection.db, out, { all: values.all });
      case 'projections retry': {
        const store = createEventStore(config, connection);
        try {
          return await retryParked(connection.db, store, PROJECTIONS, { projection: argument, position: values.position, by }, out);
        } finally {
          await store.close();
        }
      }
      case 'projections skip':
        return await skipParked(connection.db, PROJECTIONS, { projection: argument, position: values.position, by }, out);
      case 'projections rebuild': {
        const store = createEventStore(config, connection);
        try {
          return await rebuildCommand(connection, store, PROJECTIONS, { names: positionals.slice(2), all: values.all === true }, out, process.stderr);
        } finally {
          await store.close();
        }
      }
      case 'audit verify': {
        if (values.chain) {
          const eventLog = openEventLog(config, connection);
          try {
            return await verifyChainCommand(eventLog, { json: values.json === true }, out, process.stderr);
          } finally {
            await eventLog.close();
          }
        }
        const store = createEventStore(config, connection);
        try {
          return await auditVerifyCommand(connection.db, store, PROJECTIONS, { projection: values.projection, json: values.json === true }, out);
        } finally {
          await store.close();
        }
      }
      case 'audit chain':
        return await chainBackfillCommand(config.eventStoreUrl ? 'eventstoredb' : connection, out, process.stderr);
      case 'audit transaction': {
        const store = createEventStore(config, connection);
        try {
          if (values['as-of'] !== undefined) return await transactionAsOfCommand({ db: connection.db, store }, systemClock, argument, values['as-of'], out);
          return await auditTransactionCommand({ db: connection.db, store }, argument, { json: values.json === true }, out);
        } finally {
          await store.close();
        }
      }
      case 'export': {
        const store = createEventStore(config, connection);
        const eventLog = openEventLog(config, connection);
        try {
          return await exportCommand({ db: connection.db, log: eventLog, store }, email, process.stdout, out);
        } finally {
          await eventLog.close();
          await store.close();
        }
      }
      case 'import': {
        const store = await startEventStore(config, connection);
        try {
          const options = {
            format: values.format,
            dryRun: values['dry-run'] === true,
            dateFormat: values['date-format'],
            ...(values['decimal-comma'] ? { decimalComma: true } : {}),
            ...(values.charset ? { charset: values.charset } : {}),
            ...(values['date-column'] ? { dateColumn: values['date-column'] } : {}),
            ...(values['amount-column'] ? { amountColumn: values['amount-column'] } : {}),
            ...(values['debit-column'] ? { debitColumn: values['debit-column'] } : {}),
            ...(values['credit-column'] ? { creditColumn: values['credit-column'] } : {}),
            ...(values['name-column'] ? { nameColumn: values['name-column'] } : {}),
            ...(values['notes-column'] ? { notesColumn: values['notes-column'] } : {}),
          };
          return await importCommand({ database: connection, eventStore: store, clock: systemClock }, positionals[1], positionals[2], options, out, process.stderr);
        } finally {
          await store.close();
        }
      }
      default:
        return 2;
    }
  } finally {
    await connection.close();
    await embedded?.stop();
  }
}

/** Who an operator's retry or skip is recorded as: --by, else the login name. */
function operatorName(): string {
  if (process.env.USER) return process.env.USER;
  try {
    return userInfo().username;
  } catch {
    return 'unknown';
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof ConfigError || error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
