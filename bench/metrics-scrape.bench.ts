import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import { PROJECTIONS } from '../projections/index.js';
import { systemClock } from '../src/core/clock.js';
import { InProcessJobRunner } from '../src/infrastructure/jobs/in-process-job-runner.js';
import { ServiceMetrics } from '../src/infrastructure/metrics/service-metrics.js';
import { openScratchLedger, seedFillerEvents } from './support/scratch-ledger.js';

/**
 * One Prometheus scrape (every scrape-time reading plus the text of the whole registry) on a log of
 * EVENTS events (default 1M, seeded with INSERT … SELECT generate_series) with PARKED open parked
 * events spread over the projections, beside, from the same run: the registry's text alone, a `SELECT 1` round trip (the floor
 * of any reading) and `count(*)` of the events (what a scrape that counted would cost).
 * `npm run bench:metrics`; BENCH_DATABASE_URL names an admin connection (a scratch database is
 * created and dropped).
 */
const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const PARKED = Number(process.env.BENCH_PARKED ?? 10_000);
const RUNS = 20;

async function main(): Promise<void> {
  const { connection, store, close } = await openScratchLedger();
  const jobs = new InProcessJobRunner([], systemClock, () => undefined);
  try {
    const seeding = performance.now();
    await seedFillerEvents(connection.db, EVENTS);
    const projections = PROJECTIONS.map((projection) => `${projection.name}:${projection.version}`);
    await sql`
      INSERT INTO parked_events (projection, version, position_commit, position_prepare, event_id, stream_id, event_type, error, attempts, first_failed_at, last_failed_at)
      SELECT split_part(p, ':', 1), split_part(p, ':', 2)::int, g, g, gen_random_uuid()::text, 'bench-' || g, 'BenchHappened', 'bench', 3, now(), now()
        FROM generate_series(1, ${PARKED}::bigint) AS g, LATERAL (SELECT (${projections}::text[])[1 + g % ${projections.length}] AS p) pick`.execute(connection.db);
    await sql`VACUUM ANALYZE events`.execute(connection.db);
    await sql`VACUUM ANALYZE parked_events`.execute(connection.db);
    console.log(`seeded ${EVENTS.toLocaleString('en')} events and ${PARKED.toLocaleString('en')} parked events in ${((performance.now() - seeding) / 1000).toFixed(1)} s`);

    const metrics = new ServiceMetrics();
    metrics.setJobNames([]);
    const sources = { db: connection.db, eventStore: store, jobs, projections: PROJECTIONS, store: 'postgresql' as const };
    let text = '';
    const scrapes = await timeRuns(async () => {
      text = await metrics.scrape(sources);
    });
    const textAlone = await timeRuns(() => metrics.scrape(null));
    const floor = await timeRuns(() => sql`SELECT 1`.execute(connection.db));
    const counted = await timeRuns(() => sql`SELECT count(*) FROM events`.execute(connection.db), 3);
    const lines = text.split('\n').filter((line) => line.startsWith('ledgerline_projection_parked_events') || line.startsWith('ledgerline_event_store_head') || line.startsWith('ledgerline_scrape_source_up'));
    console.log(`one scrape at ${EVENTS.toLocaleString('en')} events, ${PROJECTIONS.length} projections, ${PARKED.toLocaleString('en')} parked: ${fmt(scrapes)}; ${text.length.toLocaleString('en')} bytes`);
    console.log(`reference, same run — the registry's text without the readings: ${fmt(textAlone)}; SELECT 1 round trip: ${fmt(floor)}; count(*) of the events: ${fmt(counted)}`);
    for (const line of lines) console.log(`  ${line}`);
  } finally {
    await jobs.close();
    await close();
  }
}

async function timeRuns(work: () => Promise<unknown>, runs = RUNS): Promise<number[]> {
  await work();
  const times: number[] = [];
  for (let run = 0; run < runs; run += 1) {
    const started = performance.now();
    await work();
    times.push(performance.now() - started);
  }
  return times;
}

function fmt(values: readonly number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => (sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number).toFixed(2);
  return `median ${at(0.5)} ms, p90 ${at(0.9)} ms, max ${at(1)} ms over ${values.length} runs`;
}

await main();
