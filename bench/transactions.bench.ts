import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { parseArgs } from 'node:util';
import type autocannon from 'autocannon';
import type pg from 'pg';
import { createScratchDatabase, waitFor } from './support/service-process.js';
import { connectDatabase } from '../src/infrastructure/database/database.js';
import { readModelSearchPath } from '../src/infrastructure/projections/projection.js';
import { PROJECTIONS } from '../projections/index.js';
import { ensureUser, issueApiKey } from '../src/modules/identity/identity.store.js';
import { encodeCursor } from '../src/modules/transactions/transaction-cursor.js';
import { ListTransactions, ListTransactionsHandler } from '../src/modules/transactions/transaction.queries.js';
import { type LoadRun, alternate } from './support/alternate.js';
import { httpLoadSamples } from './support/http-load.js';
import { sampleMemory } from './support/memory-sampler.js';
import { startLoadPeer, startPeerServer, startScriptNodeFlags, stopChildren } from './support/peers/peer-process.js';
import type { LoadSamples } from './support/raw-load.js';
import { rawList, rawPatch } from './support/raw-references.js';
import { recordStatements } from './support/recorded-sql.js';
import { seedTransactionEvents } from './support/seed.js';
import { benchPostgres } from './support/bench-postgres.js';
import { projectionsBehind } from './support/projections-behind.js';
import { type Comparison, describeFigures, sideBySideTable } from './support/side-by-side.js';

/**
 * npm run bench [-- --quick | --transactions 1000000 --duration 10 --connections 32 --rounds 2]
 * Seeds one user's transactions, starts the built service and its references (Emmett's PostgreSQL
 * event store, a plain NestJS + pg handler, a NestJS hello world, all on Express as the goals are
 * stated) on the same PostgreSQL, measures each operation right beside its reference, and prints one
 * table with the ratios; then the hello world on Fastify beside the one on Express (the adapter alone).
 */
const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    transactions: { type: 'string' },
    duration: { type: 'string' },
    connections: { type: 'string', default: '32' },
    rounds: { type: 'string', default: '2' },
  },
});
const quick = values.quick;
const transactions = Number(values.transactions ?? (quick ? 20_000 : 100_000));
const duration = Number(values.duration ?? (quick ? 5 : 10));
const connections = Number(values.connections);
const schedule = { durationS: duration, warmUpS: quick ? 1 : 2, rounds: Number(values.rounds) };
// The service's pool (openDatabase in runtime.ts): the page reference queries on one of the same size.
const SERVICE_POOL_SIZE = 30;
const PAGE_SIZE = 50;
const port = 39_500;
const base = `http://127.0.0.1:${port}`;
// BENCH_SERVER_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" profiles the service under load;
// the phases are written beside the profile for bench/profile-summary.
const profilingArgs = process.env.BENCH_SERVER_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
const phases: Array<{ name: string; from: number; to: number }> = [];

async function main(): Promise<void> {
  const started = Date.now();
  const server = await benchPostgres(port + 10);
  const children: ChildProcess[] = [];
  const scratch = await createScratchDatabase('ledgerline_bench', server.adminUrl).catch(async (error: unknown) => {
    await server.stop();
    throw error;
  });
  const emmettScratch = await createScratchDatabase('ledgerline_bench_emmett', server.adminUrl);
  const database = connectDatabase(scratch.url, { max: connections + 2, searchPath: readModelSearchPath(PROJECTIONS) });
  // The service's warnings and errors, kept when something went wrong.
  const serviceLog = `${tmpdir()}/ledgerline-bench-service-${started}.log`;
  let keepServiceLog = true;
  try {
    console.log(`Ledgerline and every reference on ${server.description}`);
    await warnOnFewConnections(database.pool);
    const serviceStartedAt = Date.now();
    const service = spawn(process.execPath, [...startScriptNodeFlags(), ...profilingArgs, 'dist/src/main.js'], { env: { ...process.env, DATABASE_URL: scratch.url, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', REDIS_URL: '', RATE_LIMIT_PER_MINUTE: '0' }, stdio: ['ignore', openSync(serviceLog, 'w'), 'inherit'] });
    children.push(service);
    await waitFor(async () => (await fetch(`${base}/health`).catch(() => null))?.ok === true, 60_000);
    const { user } = await ensureUser(database.db, 'bench@example.com');
    const key = (await issueApiKey(database.db, user.id, 'bench', ['read', 'write'], new Date())).key;
    const auth = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };
    const created = await fetch(`${base}/v1/accounts`, { method: 'POST', headers: auth, body: JSON.stringify({ name: 'Bench', type: 'bank', subtype: 'checking', currentBalance: 0 }) });
    if (!created.ok) throw new Error(`creating the bench account: ${created.status} ${await created.text()}`);
    const account = (await created.json()) as { id: string };

    const seedStarted = Date.now();
    // Lists the user's categories (the system taxonomy, theirs from the start) for the seeded transactions to carry.
    const categoryIds = (((await (await fetch(`${base}/v1/categories`, { headers: auth })).json()) as { categories: Array<{ id: string }> }).categories).map((category) => category.id);
    await seedTransactionEvents(database.pool, user.id, account.id, categoryIds, transactions, (done) => process.stdout.write(`\rseeding ${done}/${transactions} events`));
    // A bulk load outruns autovacuum: without statistics the planner may scan the whole log per read.
    await database.pool.query('ANALYZE events');
    await waitFor(async () => {
      const rows = await count(database.pool);
      // A parked event never becomes a row: stop now rather than wait out the timeout.
      const parked = await database.pool.query<{ projection: string; error: string }>("SELECT projection, error FROM parked_events WHERE status = 'parked' LIMIT 1");
      if (parked.rows.length > 0) throw new Error(`projection ${parked.rows[0].projection} parked a seeded event: ${parked.rows[0].error} (see ${serviceLog})`);
      process.stdout.write(`\rprojected ${rows}/${transactions} transactions     `);
      return rows >= transactions;
    }, 30 * 60_000);
    // Every other projection (spending, recurring, …) too: one still catching up would take the
    // service's CPU away from the requests measured.
    await waitFor(async () => {
      const behind = await projectionsBehind(database.pool);
      process.stdout.write(`\rwaiting for ${behind.length} projections to reach the last event: ${behind.join(', ')}`.padEnd(120));
      return behind.length === 0;
    }, 30 * 60_000, 1000);
    console.log(`\nseeded and projected ${transactions} transactions in ${((Date.now() - seedStarted) / 1000).toFixed(1)} s (every projection at the last event)`);
    // Fresh bulk data: give the planner its statistics now rather than whenever autovacuum wakes.
    await database.pool.query('ANALYZE');

    const ids = (await database.pool.query<{ id: string }>('SELECT id FROM transactions ORDER BY random() LIMIT 20000')).rows.map((row) => row.id);
    const middle = (await database.pool.query<{ id: string; date: string; created_at: Date }>('SELECT id, date::text, created_at FROM transactions ORDER BY date DESC, created_at DESC, id DESC OFFSET $1 LIMIT 1', [Math.floor(transactions / 2)])).rows[0];
    const deepCursor = encodeCursor(user.id, { date: middle.date, createdAt: middle.created_at.toISOString(), id: middle.id });

    // The page reference replays what Ledgerline's own list handler runs, recorded here.
    const handler = (cursor?: string) => recordStatements(database.pool, (db) => new ListTransactionsHandler(db).execute(new ListTransactions(user.id, { accountIds: [], categoryGroups: [], cursor, limit: PAGE_SIZE })));
    const pages = { first: await handler(), deep: await handler(deepCursor) };
    const [pagePeer, helloPeer, helloFastifyPeer] = await Promise.all([
      startPeerServer('plain-nest-page.server', port + 1, '/pages/first', { DATABASE_URL: scratch.url, POOL_SIZE: String(SERVICE_POOL_SIZE), PAGE_SIZE: String(PAGE_SIZE), PAGES: JSON.stringify(pages) }, children),
      startPeerServer('nest-hello.server', port + 2, '/hello', {}, children),
      startPeerServer('nest-hello-fastify.server', port + 3, '/hello', {}, children),
    ]);
    await checkFirstPage(database.pool, auth, pagePeer);

    let mismatches = 0;
    const problems: string[] = [];
    let sent = 0;
    // Each response is checked against what was last sent for the transaction it names, so the
    // check does not depend on how the load generator pairs requests with responses.
    const lastSent = new Map<string, string>();
    const patchRequest: autocannon.Request = {
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
    };
    const emmettVersion = packageVersion('@event-driven-io/emmett-postgresql');
    const nestVersion = packageVersion('@nestjs/core');
    const emmett = await startLoadPeer('emmett-append', { DATABASE_URL: emmettScratch.url, CONNECTIONS: String(connections), POOL_SIZE: String(SERVICE_POOL_SIZE), STREAMS: String(Math.min(2000, ids.length)) }, children);
    const ledgerline = (name: string, request: autocannon.Request) => (seconds: number) => phase(name, () => httpLoadSamples(base, request, connections, seconds));
    const peer = (url: string, path: string) => (seconds: number) => httpLoadSamples(url, { method: 'GET', path }, connections, seconds);
    const measured = await sampleMemory(service.pid as number, async () => {
      const comparisons: Comparison[] = [];
      const compare = async (operation: string, reference: string, goal: Pick<Comparison, 'goalRatio' | 'goalP99Ms'>, referenceRun: LoadRun, ledgerlineRun: LoadRun) => {
        process.stdout.write(`\rmeasuring ${operation}`.padEnd(100));
        const figures = await alternate(referenceRun, ledgerlineRun, schedule);
        comparisons.push({ operation, ledgerline: figures.ledgerline, reference, referenceFigures: figures.reference, ...goal });
      };
      await compare('`PATCH /v1/transactions/{id}` (every response checked to show its own write)', `Emmett ${emmettVersion} PostgreSQL event store, one-event append`, { goalRatio: 1, goalP99Ms: 50 }, emmett, ledgerline('PATCH', patchRequest));
      const samePageSql = `plain NestJS ${nestVersion} (Express) + pg handler, same page SQL`;
      await compare(`\`GET /v1/transactions\` first page (${PAGE_SIZE})`, samePageSql, { goalRatio: 2 }, peer(pagePeer, '/pages/first'), ledgerline('GET page', { method: 'GET', headers: auth, path: '/v1/transactions' }));
      if (!quick) {
        await compare(`\`GET /v1/transactions?cursor=…\` (page at row ${Math.floor(transactions / 2)})`, samePageSql, { goalRatio: 2 }, peer(pagePeer, '/pages/deep'), ledgerline('GET deep page', { method: 'GET', headers: auth, path: `/v1/transactions?cursor=${deepCursor}` }));
      }
      await compare('`GET /v1/accounts`', `NestJS ${nestVersion} hello world (Express)`, { goalRatio: 0.6 }, peer(helloPeer, '/hello'), ledgerline('GET accounts', { method: 'GET', headers: auth, path: '/v1/accounts' }));
      return comparisons;
    });
    // What the HTTP adapter alone buys (the service runs on Fastify, the goals are stated against Express; decision 0036).
    process.stdout.write('\rmeasuring the NestJS hello world on Express and on Fastify'.padEnd(100));
    const adapters = await alternate(peer(helloPeer, '/hello'), peer(helloFastifyPeer, '/hello'), schedule);
    const raw = quick ? null : { patch: await rawPatch(database.pool, user.id, ids, connections, duration * 1000), page: await rawList(database, user.id, connections, duration * 1000) };

    console.log(`\n${transactions} transactions, ${connections} connections, ${duration} s per target in ${schedule.rounds} turns, reference first, after ${schedule.warmUpS} s of warm-up each, load generator on the same machine (${((Date.now() - started) / 1000).toFixed(0)} s in all)`);
    console.log(`read-your-writes: ${mismatches} of ${sent} PATCH responses did not show their own write`);
    for (const problem of problems) console.log(`  ${problem}`);
    if (mismatches > 0) console.log(`  the service's warnings and errors: ${serviceLog}`);
    console.log('');
    for (const line of sideBySideTable(connections, measured.result, { peakRssMb: measured.peakRssMb, highWaterMarkMb: measured.highWaterMarkMb, goalMb: 300 })) console.log(line);
    console.log(`\nThe HTTP adapter alone, NestJS ${nestVersion} hello world in turns: on Fastify ${describeFigures(adapters.ledgerline)}, on Express ${describeFigures(adapters.reference)} (${(adapters.ledgerline.requestsPerSecond / adapters.reference.requestsPerSecond).toFixed(2)}×)`);
    if (raw) console.log(`\nThe floor, the same SQL straight on pg from the bench process: PATCH's statements ${describeFigures(raw.patch)}; the first page ${describeFigures(raw.page)}`);
    writePhases(serviceStartedAt);
    if (mismatches > 0) process.exitCode = 1;
    else keepServiceLog = false;
  } finally {
    await stopChildren(children);
    if (!keepServiceLog) await rm(serviceLog, { force: true });
    await database.close();
    await scratch.drop();
    await emmettScratch.drop();
    await server.stop();
  }
}

/** The first page is the newest 50 by (date, created_at, id), from Ledgerline and from the reference alike. */
async function checkFirstPage(pool: pg.Pool, auth: Record<string, string>, pagePeer: string): Promise<void> {
  const expected = (await pool.query<{ id: string }>('SELECT id FROM transactions ORDER BY date DESC, created_at DESC, id DESC LIMIT $1', [PAGE_SIZE])).rows.map((row) => row.id).join();
  const ledgerline = (await (await fetch(`${base}/v1/transactions`, { headers: auth })).json()) as { transactions: Array<{ id: string }>; hasMore: boolean };
  const reference = (await (await fetch(`${pagePeer}/pages/first`)).json()) as { transactions: Array<{ id: string }>; hasMore: boolean };
  for (const [name, page] of [['Ledgerline', ledgerline], ['the reference', reference]] as const) {
    if (page.transactions.map((transaction) => transaction.id).join() !== expected || !page.hasMore) throw new Error(`${name}'s first page is not the newest ${PAGE_SIZE} transactions`);
  }
}

/** The service (its pool, the event store's, LISTEN) and one reference hold up to this many at once. */
async function warnOnFewConnections(pool: pg.Pool): Promise<void> {
  const needed = 2 * SERVICE_POOL_SIZE + 15;
  const { free } = (await pool.query<{ free: number }>("SELECT current_setting('max_connections')::int - count(*)::int AS free FROM pg_stat_activity")).rows[0];
  if (free < needed) console.warn(`PostgreSQL has ${free} free connections; this bench may need ${needed} (another bench or test holds the rest)`);
}

async function phase(name: string, run: () => Promise<LoadSamples>): Promise<LoadSamples> {
  const from = Date.now();
  const samples = await run();
  phases.push({ name, from, to: Date.now() });
  return samples;
}

function writePhases(serviceStartedAt: number): void {
  const directory = profilingArgs.find((arg) => arg.startsWith('--cpu-prof-dir='))?.slice('--cpu-prof-dir='.length);
  if (!directory) return;
  mkdirSync(directory, { recursive: true });
  writeFileSync(`${directory}/phases.json`, JSON.stringify({ serviceStartedAt, phases }, null, 2));
  console.log(`\nphases for the profile: ${directory}/phases.json (node dist/bench/profile-summary.js ${directory}/<file>.cpuprofile --phases ${directory}/phases.json)`);
}

function packageVersion(name: string): string {
  return (JSON.parse(readFileSync(`node_modules/${name}/package.json`, 'utf8')) as { version: string }).version;
}

async function count(pool: pg.Pool): Promise<number> {
  return Number((await pool.query<{ count: string }>('SELECT count(*) FROM transactions')).rows[0].count);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
