import { type ChildProcess, spawn } from 'node:child_process';
import { openSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { PROJECTIONS } from '../projections/index.js';
import { connectDatabase } from '../src/infrastructure/database/database.js';
import { readModelSearchPath } from '../src/infrastructure/projections/projection.js';
import { EXPORT_LINE, PostgresEventLog } from '../src/infrastructure/event-store/postgres-event-log.js';
import { PostgresEventStore } from '../src/infrastructure/event-store/postgres-event-store.js';
import { userExport } from '../src/modules/audit/export/user-export.js';
import { ensureUser, issueApiKey } from '../src/modules/identity/identity.store.js';
import { sampleMemory } from './support/memory-sampler.js';
import { startScriptNodeFlags } from './support/peers/peer-process.js';
import { projectionsBehind } from './support/projections-behind.js';
import { createScratchDatabase, stopService, waitFor } from './support/service-process.js';

/**
 * GET /v1/export for a user with BENCH_EVENTS (default 1,000,000) events, through the built
 * service over HTTP: MB/s, events/s and the service's resident memory while it streams, beside
 * the floor in the same run — PostgreSQL writing the same lines for the same rows with
 * `COPY (SELECT …) TO STDOUT` to psql, no service in between. Rounds alternate between the two.
 * The events are seeded raw into the event store, with the size and shape of a PATCH's event
 * (data, metadata, hash chain links), under a type no read model takes, so that the service's
 * projections have nothing to build from them; another user's 10% sit among them.
 * Then the same export in this process, its live heap after a forced collection at each tenth.
 * `npm run bench:export`; BENCH_DATABASE_URL names an admin connection (a scratch database is created and dropped).
 */
const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const PORT = Number(process.env.BENCH_PORT ?? 3471);
/** Rows per INSERT: each ends well inside the feed's old-transaction bound (decision 0008), the service reading meanwhile. */
const CHUNK = 50_000;
let servicePid = 0;

async function main(): Promise<void> {
  const scratch = await createScratchDatabase('ledgerline_bench_export');
  const children: ChildProcess[] = [];
  const database = connectDatabase(scratch.url, { max: 4, searchPath: readModelSearchPath(PROJECTIONS) });
  try {
    const service = spawn(process.execPath, [...startScriptNodeFlags(), 'dist/src/main.js'], {
      env: { ...process.env, DATABASE_URL: scratch.url, PORT: String(PORT), HOST: '127.0.0.1', LOG_LEVEL: 'warn', REDIS_URL: '', RATE_LIMIT_PER_MINUTE: '0' },
      stdio: ['ignore', openSync(`${tmpdir()}/ledgerline-bench-export-${PORT}.log`, 'w'), 'inherit'],
    });
    children.push(service);
    servicePid = service.pid as number;
    const base = `http://127.0.0.1:${PORT}`;
    await waitFor(async () => (await fetch(`${base}/health`).catch(() => null))?.ok === true, 60_000);
    const { user } = await ensureUser(database.db, 'export-bench@example.com');
    const { user: neighbour } = await ensureUser(database.db, 'neighbour@example.com');
    const key = (await issueApiKey(database.db, user.id, 'bench', ['read'], new Date())).key;
    await seed(database.pool, user.id, neighbour.id, EVENTS);
    await database.pool.query('ANALYZE events');
    await waitFor(async () => (await projectionsBehind(database.pool)).length === 0, 10 * 60_000, 1000);
    const baselineRss = (await sampleMemory(service.pid as number, async () => undefined)).peakRssMb;
    console.log(`Export of ${EVENTS.toLocaleString('en')} events of one user (another user's ${Math.round(EVENTS / 10).toLocaleString('en')} among them), ${ROUNDS} rounds each, in turns:`);
    const viaService: Figures[] = [];
    const reference: Figures[] = [];
    let peakRss = 0;
    const timeline: string[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      const seen: number[] = [];
      const sampled = await sampleMemory(service.pid as number, () => exportOverHttp(base, key, (share) => seen.push(share)), 50);
      peakRss = Math.max(peakRss, sampled.peakRssMb);
      viaService.push(sampled.result);
      timeline.push(seen.map((mb, index) => `${(index + 1) * 10}% ${mb.toFixed(0)}`).join(', '));
      reference.push(await copyToStdout(scratch.url, user.id));
    }
    const best = (runs: Figures[]) => runs.reduce((a, b) => (a.seconds <= b.seconds ? a : b));
    const [ours, floor] = [best(viaService), best(reference)];
    if (ours.lines !== EVENTS || floor.lines !== EVENTS) throw new Error(`expected ${EVENTS} lines, got ${ours.lines} (service) and ${floor.lines} (COPY)`);
    console.log(`| | MB/s | events/s | seconds | MB | peak RSS |`);
    console.log(`|---|---|---|---|---|---|`);
    console.log(row('GET /v1/export (service, HTTP)', ours, `${peakRss.toFixed(0)} MB (at rest before: ${baselineRss.toFixed(0)} MB)`));
    console.log(row('COPY (SELECT same lines) TO STDOUT → psql', floor, '—'));
    console.log(`ratio service / COPY: ${(ours.bytes / ours.seconds / (floor.bytes / floor.seconds)).toFixed(2)}× the floor's MB/s`);
    // Flat memory: the service's RSS as the export goes (V8 collects lazily), and the live heap of
    // the same export run here with a collection forced at each tenth: what it keeps, whatever it has sent.
    for (const [round, line] of timeline.entries()) console.log(`service RSS (MB) by share of the export sent, round ${round + 1}: ${line}`);
    console.log(`live heap (MB) after a forced collection, the same export in this process: ${await liveHeapDuringExport(database.pool, user.id)}`);
  } finally {
    for (const child of children) await stopService(child);
    await database.close();
    await scratch.drop();
  }
}

function rssMb(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
}

interface Figures {
  readonly bytes: number;
  readonly lines: number;
  readonly seconds: number;
}

function row(name: string, figures: Figures, rss: string): string {
  const mb = figures.bytes / 1e6;
  return `| ${name} | ${(mb / figures.seconds).toFixed(1)} | ${Math.round(figures.lines / figures.seconds).toLocaleString('en')} | ${figures.seconds.toFixed(1)} | ${mb.toFixed(0)} | ${rss} |`;
}

/** Reads the whole export as a client would, counting bytes and lines, keeping none of it; `atTenth` hears the service's RSS at each tenth of the events. */
async function exportOverHttp(base: string, key: string, atTenth: (rssMb: number) => void = () => undefined): Promise<Figures> {
  const started = performance.now();
  const response = await fetch(`${base}/v1/export`, { headers: { Authorization: `Bearer ${key}` } });
  if (!response.ok || !response.body) throw new Error(`GET /v1/export: ${response.status}`);
  let bytes = 0;
  let lines = 0;
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.length;
    for (const byte of chunk) {
      if (byte !== 0x0a) continue;
      lines += 1;
      if (lines % (EVENTS / 10) === 0) atTenth(rssMb(servicePid));
    }
  }
  return { bytes, lines, seconds: (performance.now() - started) / 1000 };
}

/** The export as the service streams it (PostgresEventLog, userExport), into a sink, with a full collection at each tenth. */
async function liveHeapDuringExport(pool: pg.Pool, userId: string): Promise<string> {
  const collect = (globalThis as { gc?: () => void }).gc;
  if (!collect) return 'run with node --expose-gc to see it';
  const store = new PostgresEventStore(pool);
  const heap: string[] = [];
  let lines = 0;
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (let at = chunk.indexOf(0x0a); at !== -1; at = chunk.indexOf(0x0a, at + 1)) {
        lines += 1;
        if (lines % (EVENTS / 10) === 0) {
          collect();
          heap.push(`${(lines * 100) / EVENTS}% ${(process.memoryUsage().heapUsed / 1e6).toFixed(1)}`);
        }
      }
      done();
    },
  });
  try {
    await pipeline(await userExport(new PostgresEventLog(pool), store, userId), sink);
  } finally {
    await store.close();
  }
  return heap.join(', ');
}

/** The floor: PostgreSQL writes the same lines for the same rows straight to psql's stdout. */
async function copyToStdout(url: string, userId: string): Promise<Figures> {
  const started = performance.now();
  const copy = `COPY (SELECT ${EXPORT_LINE.replace(/\s+/g, ' ')} FROM events WHERE metadata->>'userId' = '${userId}' ORDER BY transaction_id, global_position) TO STDOUT`;
  const psql = spawn('psql', [url, '-X', '-q', '-c', copy], { stdio: ['ignore', 'pipe', 'inherit'] });
  let bytes = 0;
  let lines = 0;
  for await (const chunk of psql.stdout as AsyncIterable<Buffer>) {
    bytes += chunk.length;
    for (let at = chunk.indexOf(0x0a); at !== -1; at = chunk.indexOf(0x0a, at + 1)) lines += 1;
  }
  await new Promise((resolve) => (psql.exitCode === null ? psql.once('exit', resolve) : resolve(null)));
  return { bytes, lines, seconds: (performance.now() - started) / 1000 };
}

/**
 * `count` events of `userId` and a tenth as many of `neighbour`'s, interleaved, raw: streams of
 * three events (a creation, two edits) shaped like the API's, each with its 32-byte hash links.
 */
async function seed(pool: pg.Pool, userId: string, neighbour: string, count: number): Promise<void> {
  const total = count + Math.round(count / 10);
  for (let done = 0; done < total; done += CHUNK) {
    const size = Math.min(CHUNK, total - done);
    await pool.query(
      `INSERT INTO events (event_id, stream_id, stream_revision, type, data, metadata, previous_hash, hash)
       SELECT gen_random_uuid(), 'bench-transaction-' || md5((g / 3)::text)::uuid, g % 3, 'BenchTransactionRecorded',
              jsonb_build_object(
                'transactionId', md5((g / 3)::text)::uuid,
                'changes', jsonb_build_array(
                  jsonb_build_object('field', 'amount', 'oldValue', '-12.5', 'newValue', '-' || (g % 997 + 1) || '.25', 'locked', true),
                  jsonb_build_object('field', 'notes', 'oldValue', NULL, 'newValue', 'Lunch with the team ' || g, 'locked', true))),
              jsonb_build_object(
                'userId', CASE WHEN g % 11 = 10 THEN $2 ELSE $1 END, 'actor', 'user', 'requestId', gen_random_uuid(), 'causationId', gen_random_uuid(),
                'correlationId', gen_random_uuid(), 'schemaVersion', 1,
                'occurredAt', to_char((timestamp '2026-01-01' + make_interval(secs => g)), 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')),
              sha256(('p' || g)::bytea), sha256(('h' || g)::bytea)
         FROM generate_series($3::bigint, $3::bigint + $4::bigint - 1) AS g`,
      [userId, neighbour, done, size],
    );
    process.stdout.write(`\rseeding ${(done + size).toLocaleString('en')}/${total.toLocaleString('en')} events`);
  }
  process.stdout.write('\n');
}

await main();
