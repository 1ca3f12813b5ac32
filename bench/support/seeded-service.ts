import { type ChildProcess, spawn } from 'node:child_process';
import { openSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { PROJECTIONS } from '../../projections/index.js';
import { connectDatabase, type DatabaseConnection } from '../../src/infrastructure/database/database.js';
import { readModelSearchPath } from '../../src/infrastructure/projections/projection.js';
import { ensureUser, issueApiKey } from '../../src/modules/identity/identity.store.js';
import { startScriptNodeFlags } from './peers/peer-process.js';
import { projectionsBehind } from './projections-behind.js';
import { seedTransactionEvents } from './seed.js';
import { waitFor } from './service-process.js';

export interface SeededService {
  readonly base: string;
  readonly service: ChildProcess;
  readonly database: DatabaseConnection;
  readonly userId: string;
  readonly auth: Record<string, string>;
  /** Up to 20,000 of the seeded transactions' ids, in random order. */
  readonly ids: string[];
}

/**
 * The built service on `databaseUrl` at 127.0.0.1:`port`, with one user, a manual account and
 * `transactions` transactions seeded into the event store, every projection at the last event.
 */
export async function startSeededService(databaseUrl: string, port: number, transactions: number, children: ChildProcess[]): Promise<SeededService> {
  const base = `http://127.0.0.1:${port}`;
  // BENCH_SERVER_NODE_ARGS ("--cpu-prof --cpu-prof-dir=/tmp/prof", "--max-old-space-size=400") go to the service too.
  const service = spawn(process.execPath, [...startScriptNodeFlags(), ...(process.env.BENCH_SERVER_NODE_ARGS?.split(' ').filter(Boolean) ?? []), 'dist/src/main.js'], {
    env: { ...process.env, DATABASE_URL: databaseUrl, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', REDIS_URL: '', RATE_LIMIT_PER_MINUTE: '0' },
    stdio: ['ignore', openSync(`${tmpdir()}/ledgerline-bench-service-${port}.log`, 'w'), 'inherit'],
  });
  children.push(service);
  const database = connectDatabase(databaseUrl, { max: 4, searchPath: readModelSearchPath(PROJECTIONS) });
  await waitFor(async () => (await fetch(`${base}/health`).catch(() => null))?.ok === true, 60_000);
  const { user } = await ensureUser(database.db, 'bench@example.com');
  const auth = { Authorization: `Bearer ${(await issueApiKey(database.db, user.id, 'bench', ['read', 'write'], new Date())).key}`, 'Content-Type': 'application/json' };
  const account = (await (await fetch(`${base}/v1/accounts`, { method: 'POST', headers: auth, body: JSON.stringify({ name: 'Bench', type: 'bank', subtype: 'checking', currentBalance: 0 }) })).json()) as { id: string };
  const categoryIds = ((await (await fetch(`${base}/v1/categories`, { headers: auth })).json()) as { categories: Array<{ id: string }> }).categories.map((category) => category.id);
  await seedTransactionEvents(database.pool, user.id, account.id, categoryIds, transactions, (done) => process.stdout.write(`\rseeding ${done}/${transactions}`));
  await waitFor(async () => (await projectionsBehind(database.pool)).length === 0, 30 * 60_000, 1000);
  await database.pool.query('ANALYZE');
  process.stdout.write(`\rseeded and projected ${transactions} transactions\n`);
  const ids = (await database.pool.query<{ id: string }>('SELECT id FROM transactions ORDER BY random() LIMIT 20000')).rows.map((row) => row.id);
  return { base, service, database, userId: user.id, auth, ids };
}
