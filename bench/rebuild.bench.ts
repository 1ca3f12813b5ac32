import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import { PROJECTIONS } from '../projections/index.js';
import { type GlobalPosition, START_POSITION } from '../src/core/events.js';
import { rebuildProjection } from '../src/infrastructure/projections/projection-rebuild.js';
import { REPLAY_BATCH_SIZE } from '../src/infrastructure/projections/projection-replay.js';
import { ProgressReporter } from '../src/infrastructure/projections/rebuild-progress.js';
import { EVENTS_PER_TRANSACTION, seedLedgerEvents } from './support/ledger-seed.js';
import { sampleMemory } from './support/memory-sampler.js';
import { openScratchLedger } from './support/scratch-ledger.js';

/**
 * `projections rebuild --all` over a log of BENCH_EVENTS events (default 1M) seeded straight into
 * the events table in the shapes the app appends (bench/support/ledger-seed.ts: accounts, tags,
 * transactions created, edited, tagged, some deleted). Beside it, from the same run: reading the
 * same events with readAll and doing nothing else (every type, and only the transactions read
 * model's types), and a plain INSERT … SELECT copy of the events table. Per projection: events/s
 * over the whole log and the peak RSS sampled during its rebuild; at the end the process's VmHWM.
 * `npm run bench:rebuild`; BENCH_DATABASE_URL names an admin connection (a scratch database is
 * created and dropped). Profile with `node --cpu-prof dist/bench/rebuild.bench.js`.
 */
const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const BATCH = Number(process.env.BENCH_BATCH ?? REPLAY_BATCH_SIZE);

const mb = (bytes: number) => bytes / 1024 / 1024;
const fmt = (n: number) => Math.round(n).toLocaleString('en');
function statusMb(field: 'VmRSS' | 'VmHWM'): number {
  return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0) / 1024;
}

async function main(): Promise<void> {
  const { connection, store, close } = await openScratchLedger();
  try {
    const seeding = performance.now();
    await seedLedgerEvents(connection.db, Math.round(EVENTS / EVENTS_PER_TRANSACTION), (done) => process.stderr.write(`\rseeding ${fmt(done)} events`));
    await sql`VACUUM ANALYZE events`.execute(connection.db);
    const stored = (await sql<{ count: number }>`SELECT count(*)::int AS count FROM events`.execute(connection.db)).rows[0].count;
    const types = await sql<{ type: string; count: number }>`SELECT type, count(*)::int AS count FROM events GROUP BY type ORDER BY 2 DESC`.execute(connection.db);
    console.log(`\nseeded ${fmt(stored)} events in ${((performance.now() - seeding) / 1000).toFixed(1)} s: ${types.rows.map((row) => `${row.type} ${fmt(row.count)}`).join(', ')}`);

    // The versions are live at the head with empty tables: what is timed is the rebuild, not a runner.
    const head = await store.headPosition();
    await sql`UPDATE projection_versions SET caught_up_at = now(), position_commit = ${head.commit.toString()}, position_prepare = ${head.prepare.toString()}`.execute(connection.db);

    console.log(`\nreferences (same run, reads of ${fmt(BATCH)}):`);
    const readAllEvents = async (eventTypes?: readonly string[]) => {
      let after: GlobalPosition = START_POSITION;
      let read = 0;
      const started = performance.now();
      for (;;) {
        const page = await store.readAll({ after, maxCount: BATCH, eventTypes });
        read += page.length;
        if (page.length < BATCH) break;
        after = page[page.length - 1].position;
      }
      return { read, seconds: (performance.now() - started) / 1000 };
    };
    const everything = await readAllEvents();
    console.log(`  readAll, every type, nothing else      ${fmt(everything.read)} events in ${everything.seconds.toFixed(1)} s = ${fmt(stored / everything.seconds)} ev/s (of the log)`);
    const transactions = PROJECTIONS.find((projection) => projection.name === 'transactions')!;
    const filtered = await readAllEvents(transactions.eventTypes);
    console.log(`  readAll, transactions' types only      ${fmt(filtered.read)} events in ${filtered.seconds.toFixed(1)} s = ${fmt(stored / filtered.seconds)} ev/s (of the log)`);
    const copying = performance.now();
    await sql`CREATE TABLE bench_copy AS SELECT * FROM events WITH NO DATA`.execute(connection.db);
    await sql`INSERT INTO bench_copy SELECT * FROM events`.execute(connection.db);
    const copySeconds = (performance.now() - copying) / 1000;
    await sql`DROP TABLE bench_copy`.execute(connection.db);
    console.log(`  INSERT INTO copy SELECT * FROM events  ${fmt(stored)} rows in ${copySeconds.toFixed(1)} s = ${fmt(stored / copySeconds)} rows/s`);

    console.log(`\nprojections rebuild --all (${PROJECTIONS.length} projections, each replays the whole log; RSS at start ${statusMb('VmRSS').toFixed(0)} MB):`);
    const reporter = new ProgressReporter(process.stderr);
    const rows: string[] = [];
    let totalSeconds = 0;
    let totalEvents = 0;
    for (const projection of PROJECTIONS) {
      const rss: number[] = [];
      const started = performance.now();
      const { result, peakRssMb } = await sampleMemory(process.pid, () =>
        rebuildProjection(connection, store, projection, {
          batchSize: BATCH,
          onProgress: (at) => {
            rss.push(mb(process.memoryUsage().rss));
            if (at.phase === 'done') reporter.finish(at);
            else reporter.update(at);
          },
        }),
      );
      const seconds = (performance.now() - started) / 1000;
      totalSeconds += seconds;
      totalEvents += stored;
      const quarters = [0.25, 0.5, 0.75, 1].map((q) => rss[Math.min(rss.length - 1, Math.floor(q * (rss.length - 1)))]?.toFixed(0) ?? '-').join('/');
      rows.push(
        `  ${projection.name.padEnd(21)} ${fmt(result.applied).padStart(9)} applied  ${seconds.toFixed(1).padStart(6)} s  ${fmt(stored / seconds).padStart(9)} ev/s  peak RSS ${peakRssMb.toFixed(0)} MB (at 25/50/75/100 %: ${quarters})`,
      );
    }
    for (const row of rows) console.log(row);
    console.log(`  all                   ${fmt(totalEvents / totalSeconds).padStart(9)} ev/s over ${fmt(totalEvents)} events replayed in ${totalSeconds.toFixed(1)} s; VmHWM ${statusMb('VmHWM').toFixed(0)} MB`);
  } finally {
    await close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
