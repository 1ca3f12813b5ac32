import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { setPriority } from 'node:os';
import { parseArgs } from 'node:util';
import type pg from 'pg';
import { createScratchDatabase, cpuSeconds, rssMb, stopService, waitFor } from './support/service-process.js';
import { connectDatabase } from '../src/infrastructure/database/database.js';
import { readModelSearchPath } from '../src/infrastructure/projections/projection.js';
import { PROJECTIONS } from '../projections/index.js';
import { ensureUser, issueApiKey } from '../src/modules/identity/identity.store.js';
import { createPersistentSandboxBank } from '../src/modules/link/provider/persistent-sandbox-bank.js';

/**
 * npm run bench:bank-link-sync [-- --transactions 100000 --redis]
 * Starts the built service on a fresh database, links one sandbox item holding `transactions`
 * transactions, and times its first sync end to end: POST /link/items, the sync job paging
 * through the provider, the appends, and every projection applying them (until the list holds
 * them all). Beside it, in the same run: the same number of events written straight into
 * PostgreSQL in statements of 500 (the floor the sync's own appends sit on).
 */
const { values } = parseArgs({
  options: {
    transactions: { type: 'string', default: '100000' },
    redis: { type: 'boolean', default: false },
  },
});
const transactions = Number(values.transactions);
const port = 39_501;
const base = `http://127.0.0.1:${port}`;

async function main(): Promise<void> {
  const scratch = await createScratchDatabase('ledgerline_bench_sync');
  const databaseUrl = scratch.url;
  let service: ChildProcess | null = null;
  const database = connectDatabase(databaseUrl, { max: 4, searchPath: readModelSearchPath(PROJECTIONS) });
  try {
    const env = {
      ...process.env,
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      LOG_LEVEL: 'warn',
      REDIS_URL: values.redis ? (process.env.REDIS_URL ?? 'redis://127.0.0.1:6379') : '',
      RATE_LIMIT_PER_MINUTE: '0',
      BANK_LINK_PROVIDER: 'sandbox',
      LINK_TOKEN_KEY: randomBytes(32).toString('base64'),
      BANK_LINK_SYNC_INTERVAL_MINUTES: '0',
    };
    // As `npm start` runs it; BENCH_SERVER_NODE_ARGS="--cpu-prof --cpu-prof-dir=prof" adds a profile.
    const nodeArgs = ['--max-semi-space-size=64', ...(process.env.BENCH_SERVER_NODE_ARGS?.split(' ').filter(Boolean) ?? [])];
    service = spawn(process.execPath, [...nodeArgs, 'dist/src/main.js'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
    await waitFor(async () => (await fetch(`${base}/health`).catch(() => null))?.ok === true, 60_000);
    // The bench itself (its polling, the provider's ground truth) yields the shared cores to the
    // service and PostgreSQL it measures; the service started before this, at normal priority.
    setPriority(19);
    const { user } = await ensureUser(database.db, 'bench@example.com');
    const key = (await issueApiKey(database.db, user.id, 'bench', ['read', 'write'], new Date())).key;
    const auth = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };

    // The provider's side, set up outside the timing: the item's history is generated once here
    // (to know how many transactions the list must end with) and again, from its seed, by the service.
    const sandbox = createPersistentSandboxBank(database.db, { clock: { now: () => new Date() }, webhookSecret: randomBytes(32) });
    const publicToken = await sandbox.createPublicToken({ userId: user.id, institutionId: 'ins_100003', transactionCount: transactions });

    const rssBefore = rssMb(service);
    const cpuBefore = cpuSeconds(service);
    let peakRss = rssBefore;
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, rssMb(service))), 100);
    const started = performance.now();
    const linked = await fetch(`${base}/v1/link/items`, { method: 'POST', headers: auth, body: JSON.stringify({ publicToken }) });
    if (linked.status !== 201) throw new Error(`POST /v1/link/items answered ${linked.status}: ${await linked.text()}`);
    const { linkItemId } = (await linked.json()) as { linkItemId: string };
    const groundTruthStarted = performance.now();
    const history = (await sandbox.itemHistory(linkItemId)).transactions;
    const groundTruthMs = performance.now() - groundTruthStarted;
    const expected = history.length;
    // Count and total both as the provider has them: the list is complete (not passing through the count on its way).
    const expectedCents = history.reduce((sum, transaction) => sum + Math.abs(Math.round(Number(transaction.amount) * 100)), 0);
    // Polled four times a second: the count (an index-only scan), and the total once the count is there.
    await waitFor(async () => {
      const listed = await listedCount(database.pool, user.id);
      process.stdout.write(`\rlisted ${listed}/${expected} transactions`);
      return listed === expected && (await listedCents(database.pool, user.id)) === expectedCents;
    }, 30 * 60_000, 250);
    const elapsedMs = performance.now() - started;
    clearInterval(sampler);
    const rssAfter = rssMb(service);
    const serviceCpu = cpuSeconds(service) - cpuBefore;
    const events = Number((await database.pool.query<{ count: string }>('SELECT count(*) FROM events')).rows[0].count);

    console.log(`\nfirst sync of one bank-link item, ${REDIS_LABEL()} jobs, 2 cores shared with PostgreSQL`);
    console.log(`  ${expected} transactions listed ${(elapsedMs / 1000).toFixed(1)} s after POST /v1/link/items (${Math.round(expected / (elapsedMs / 1000))} transactions/s; ${events} events)`);
    console.log(`  (this bench, at nice 19, computed the provider's ground truth in ${groundTruthMs.toFixed(0)} ms during the sync)`);
    console.log(`  service CPU ${serviceCpu.toFixed(1)} s (the rest of the two cores: PostgreSQL, this bench)`);
    console.log(`  service RSS MB: before ${rssBefore.toFixed(0)}, peak ${peakRss.toFixed(0)}, after ${rssAfter.toFixed(0)}`);
    const rawMs = await rawAppend(database.pool, events);
    console.log(`  reference: ${events} events inserted straight into PostgreSQL, 500 per statement: ${(rawMs / 1000).toFixed(1)} s (${Math.round(events / (rawMs / 1000))} events/s); sync/raw ${(elapsedMs / rawMs).toFixed(1)}x`);
  } finally {
    await stopService(service);
    await database.close();
    await scratch.drop();
  }
}

const REDIS_LABEL = () => (values.redis ? 'BullMQ' : 'in-process');

async function listedCount(pool: pg.Pool, userId: string): Promise<number> {
  return Number((await pool.query<{ count: string }>('SELECT count(*) AS count FROM transactions WHERE user_id = $1', [userId])).rows[0].count);
}

async function listedCents(pool: pg.Pool, userId: string): Promise<number> {
  return Number((await pool.query<{ cents: string | null }>('SELECT sum(abs(round(amount * 100))) AS cents FROM transactions WHERE user_id = $1', [userId])).rows[0].cents ?? 0);
}

/** The events the sync wrote, copied into a scratch table of the same shape, 500 rows a statement. */
async function rawAppend(pool: pg.Pool, total: number): Promise<number> {
  await pool.query('CREATE TABLE public.raw_events (LIKE public.events INCLUDING ALL)');
  const { rows } = await pool.query<{ stream_id: string; type: string; data: unknown; metadata: unknown }>('SELECT stream_id, type, data, metadata FROM events ORDER BY global_position');
  const started = performance.now();
  for (let start = 0; start < total; start += 500) {
    const chunk = rows.slice(start, start + 500);
    await pool.query(
      `INSERT INTO public.raw_events (event_id, stream_id, stream_revision, type, data, metadata)
       SELECT e.id, e.stream_id, 0, e.type, e.data, e.metadata FROM unnest($1::uuid[], $2::text[], $3::text[], $4::jsonb[], $5::jsonb[]) AS e(id, stream_id, type, data, metadata)`,
      [chunk.map(() => randomUUID()), chunk.map((row, i) => `${row.stream_id}-${start + i}`), chunk.map((row) => row.type), chunk.map((row) => JSON.stringify(row.data)), chunk.map((row) => JSON.stringify(row.metadata))],
    );
  }
  return performance.now() - started;
}




main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
