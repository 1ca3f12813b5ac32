import { type ChildProcess, spawn } from 'node:child_process';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import type pg from 'pg';
import { createScratchDatabase, rssMb, stopService, waitFor } from './support/service-process.js';
import { connectDatabase } from '../src/infrastructure/database/database.js';
import { readModelSearchPath } from '../src/infrastructure/projections/projection.js';
import { PROJECTIONS } from '../projections/index.js';
import { appendStatement } from '../src/infrastructure/event-store/postgres-event-store.js';
import { ensureUser, issueApiKey } from '../src/modules/identity/identity.store.js';
import { encodeCursor } from '../src/modules/transactions/transaction-cursor.js';
import { listTransactionsQuery } from '../src/modules/transactions/transaction.queries.js';
import { type LoadFigures, rawLoad } from './support/raw-load.js';
import { seedTransactionEvents } from './support/seed.js';

/**
 * npm run bench [-- --transactions 1000000 --duration 10 --connections 32]
 * Seeds one user, starts the built service against a fresh database, and measures PATCH and GET
 * over HTTP beside the same SQL run straight against PostgreSQL.
 */
const { values } = parseArgs({
  options: {
    transactions: { type: 'string', default: '100000' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '32' },
  },
});
const transactions = Number(values.transactions);
const duration = Number(values.duration);
const connections = Number(values.connections);
const port = 39_500;
const base = `http://127.0.0.1:${port}`;

async function main(): Promise<void> {
  const scratch = await createScratchDatabase('ledgerline_bench');
  const databaseUrl = scratch.url;
  let service: ChildProcess | null = null;
  const database = connectDatabase(databaseUrl, { max: connections + 2, searchPath: readModelSearchPath(PROJECTIONS) });
  try {
    // BENCH_SERVER_NODE_ARGS="--cpu-prof --cpu-prof-dir=prof" profiles the service under load.
    const nodeArgs = process.env.BENCH_SERVER_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
    service = spawn(process.execPath, [...nodeArgs, 'dist/src/main.js'], { env: { ...process.env, DATABASE_URL: databaseUrl, PORT: String(port), LOG_LEVEL: 'warn', REDIS_URL: '', RATE_LIMIT_PER_MINUTE: '0' }, stdio: ['ignore', 'ignore', 'inherit'] });
    await waitFor(async () => (await fetch(`${base}/health`).catch(() => null))?.ok === true, 60_000);
    const { user } = await ensureUser(database.db, 'bench@example.com');
    const key = (await issueApiKey(database.db, user.id, 'bench', ['read', 'write'], new Date())).key;
    const auth = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };
    const account = (await (await fetch(`${base}/v1/accounts`, { method: 'POST', headers: auth, body: JSON.stringify({ name: 'Bench', type: 'bank', subtype: 'checking', currentBalance: 0 }) })).json()) as { id: string };

    const seedStarted = Date.now();
    // Seeds the user's category taxonomy, so every seeded transaction's category joins a row.
    const categoryIds = (((await (await fetch(`${base}/v1/categories`, { headers: auth })).json()) as { categories: Array<{ id: string }> }).categories).map((category) => category.id);
    await seedTransactionEvents(database.pool, user.id, account.id, categoryIds, transactions, (done) => process.stdout.write(`\rseeding ${done}/${transactions} events`));
    // A bulk load outruns autovacuum: without statistics the planner may scan the whole log per read.
    await database.pool.query('ANALYZE events');
    await waitFor(async () => {
      const rows = await count(database.pool);
      process.stdout.write(`\rprojected ${rows}/${transactions} transactions     `);
      return rows >= transactions;
    }, 30 * 60_000);
    console.log(`\nseeded and projected ${transactions} transactions in ${((Date.now() - seedStarted) / 1000).toFixed(1)} s`);
    // Fresh bulk data: give the planner its statistics now rather than whenever autovacuum wakes.
    await database.pool.query('ANALYZE');

    const ids = (await database.pool.query<{ id: string }>('SELECT id FROM transactions ORDER BY random() LIMIT 20000')).rows.map((row) => row.id);
    const middle = (await database.pool.query<{ id: string; date: string; created_at: Date }>('SELECT id, date::text, created_at FROM transactions ORDER BY date DESC, created_at DESC, id DESC OFFSET $1 LIMIT 1', [Math.floor(transactions / 2)])).rows[0];
    const deepCursor = encodeCursor(user.id, { date: middle.date, createdAt: middle.created_at.toISOString(), id: middle.id });

    const results: Array<[string, LoadFigures, number, LoadFigures]> = [];
    let mismatches = 0;
    const problems: string[] = [];
    let sent = 0;
    // Each response is checked against what was last sent for the transaction it names, so the
    // check does not depend on how the load generator pairs requests with responses.
    const lastSent = new Map<string, string>();
    const patch = await cannon({
      method: 'PATCH',
      headers: auth,
      setupRequest: (request) => {
        sent += 1;
        const id = ids[sent % ids.length];
        const notes = `bench ${sent}`;
        lastSent.set(id, notes);
        return { ...request, path: `/v1/transactions/${id}`, body: JSON.stringify({ notes }) };
      },
      onResponse: (status, body) => {
        const transaction = status === 200 ? (JSON.parse(body) as { id: string; notes: string }) : null;
        if (transaction && transaction.notes === lastSent.get(transaction.id)) return;
        mismatches += 1;
        if (problems.length < 5) problems.push(`${status} ${body.slice(0, 200)}${transaction ? ` (last sent: ${lastSent.get(transaction.id)})` : ''}`);
      },
    });
    results.push(['PATCH /v1/transactions/{id}', patch, rssMb(service), await rawPatch(database.pool, user.id, ids)]);
    const firstPage = await cannon({ method: 'GET', headers: auth, path: '/v1/transactions' });
    results.push(['GET /v1/transactions (first page)', firstPage, rssMb(service), await rawList(database, user.id)]);
    const deepPage = await cannon({ method: 'GET', headers: auth, path: `/v1/transactions?cursor=${deepCursor}` });
    results.push([`GET /v1/transactions (cursor at row ${Math.floor(transactions / 2)})`, deepPage, rssMb(service), await rawList(database, user.id, deepCursor)]);

    console.log(`\n${transactions} transactions, ${connections} connections, ${duration} s per run, load generator on the same 2 cores`);
    console.log(`read-your-writes: ${mismatches} of ${sent} PATCH responses did not show their own write`);
    for (const problem of problems) console.log(`  ${problem}`);
    console.log('operation'.padEnd(48) + 'HTTP req/s   p50 ms   p99 ms   server RSS MB  |  raw PostgreSQL ops/s   p50 ms   p99 ms');
    for (const [label, http, rssMb, raw] of results) {
      console.log(
        label.padEnd(48) +
          `${http.requestsPerSecond.toFixed(0).padStart(10)} ${http.p50.toFixed(1).padStart(8)} ${http.p99.toFixed(1).padStart(8)} ${rssMb.toFixed(0).padStart(15)}  |  ${raw.requestsPerSecond.toFixed(0).padStart(19)} ${raw.p50.toFixed(1).padStart(8)} ${raw.p99.toFixed(1).padStart(8)}`,
      );
    }
  } finally {
    await stopService(service);
    await database.close();
    await scratch.drop();
  }
}

async function cannon(request: autocannon.Request): Promise<LoadFigures> {
  const result = await autocannon({ url: base, connections, duration, requests: [request] });
  if (result.non2xx > 0 || result.errors > 0) console.warn(`\n${request.method} ${request.path ?? ''}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return { requestsPerSecond: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, count: result.requests.total };
}

/** The SQL a PATCH runs: the list check, the stream read, the append, the projector's update, the read back. */
function rawPatch(pool: pg.Pool, userId: string, ids: string[]): Promise<LoadFigures> {
  return rawLoad(connections, duration * 1000, async (worker, iteration) => {
    const id = ids[(worker * 997 + iteration) % ids.length];
    await pool.query('SELECT id FROM transactions WHERE id = $1 AND user_id = $2', [id, userId]);
    const stream = await pool.query<{ stream_revision: string }>('SELECT stream_revision FROM events WHERE stream_id = $1 ORDER BY stream_revision', [`transaction-${id}`]);
    const metadata = { userId, actor: 'user' as const, requestId: 'raw', causationId: 'raw', correlationId: 'raw', occurredAt: new Date().toISOString(), schemaVersion: 1 };
    const revision = BigInt(stream.rows[stream.rows.length - 1].stream_revision);
    const append = appendStatement(`transaction-${id}`, [{ type: 'RawBenchEdited', data: { notes: `raw ${iteration}` }, metadata }], revision);
    await pool.query(append).catch(() => undefined);
    await pool.query('UPDATE transactions SET notes = $2, updated_at = now() WHERE id = $1', [id, `raw ${iteration}`]);
    await pool.query('SELECT t.*, a.name FROM transactions t JOIN accounts a ON a.id = t.account_id WHERE t.id = $1 AND t.user_id = $2', [id, userId]);
  });
}

function rawList(database: ReturnType<typeof connectDatabase>, userId: string, cursor?: string): Promise<LoadFigures> {
  const compiled = listTransactionsQuery(database.db, userId, { accountIds: [], categoryGroups: [], cursor, limit: 50 }).compile();
  return rawLoad(connections, duration * 1000, async () => {
    await database.pool.query(compiled.sql, compiled.parameters as unknown[]);
  });
}

async function count(pool: pg.Pool): Promise<number> {
  return Number((await pool.query<{ count: string }>('SELECT count(*) FROM transactions')).rows[0].count);
}



main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
