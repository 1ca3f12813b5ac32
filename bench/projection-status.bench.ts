import { spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { PROJECTIONS } from '../projections/index.js';
import { comparePositions, formatPosition, type GlobalPosition } from '../src/core/events.js';
import type { EventStore } from '../src/infrastructure/event-store/event-store.port.js';
import { showProjectionStatus } from '../src/infrastructure/projections/projection-commands.js';
import { readProjectionVersions } from '../src/infrastructure/projections/projection-status.js';
import { openScratchLedger, seedFillerEvents } from './support/scratch-ledger.js';

/**
 * `ledgerline projections status` on a log of EVENTS events (default 1M, seeded straight into the
 * events table with INSERT … SELECT generate_series, 100k per transaction), with this release's
 * projections spread over the log: a third at the start, a third half-way, a third at the head.
 * Printed beside, from the same run: the lag as the previous release counted it (readAll of up to
 * 100k events per projection behind), and the exact count of events behind each version (an
 * index-only count, for how far off the estimate is). `npm run bench:projection-status`;
 * BENCH_DATABASE_URL names an admin connection (a scratch database is created and dropped).
 */
const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const RUNS = 5;

async function main(): Promise<void> {
  const { url, connection, store, close } = await openScratchLedger();
  try {
    const seeding = performance.now();
    await seedFillerEvents(connection.db, EVENTS);
    await sql`VACUUM ANALYZE events`.execute(connection.db);
    console.log(`seeded ${EVENTS.toLocaleString('en')} events in ${((performance.now() - seeding) / 1000).toFixed(1)} s`);

    const head = await store.headPosition();
    const middle = await positionOf(connection.db, Math.floor(EVENTS / 2));
    const spots: GlobalPosition[] = [{ commit: 0n, prepare: 0n }, middle, head];
    for (const [i, projection] of PROJECTIONS.entries()) {
      const at = spots[i % spots.length] as GlobalPosition;
      await sql`UPDATE projection_versions SET position_commit = ${at.commit.toString()}, position_prepare = ${at.prepare.toString()}
                 WHERE name = ${projection.name} AND version = ${projection.version}`.execute(connection.db);
    }

    const lines: string[] = [];
    const out = { log: (line: string) => lines.push(line), error: (line: string) => lines.push(line) };
    const now: number[] = [];
    for (let run = 0; run < RUNS; run += 1) {
      lines.length = 0;
      const started = performance.now();
      await showProjectionStatus(connection.db, store, PROJECTIONS, out);
      now.push(performance.now() - started);
    }
    console.log(`projections status at ${EVENTS.toLocaleString('en')} events, ${PROJECTIONS.length} projections: ${fmt(now)}`);
    for (const line of lines) console.log(`  ${line}`);

    const cliPath = fileURLToPath(new URL('../src/cli.js', import.meta.url));
    const env = { ...process.env, DATABASE_URL: url.toString(), EVENTSTORE_URL: '' };
    const wholeCommand = (args: string[], expected: number) => {
      const started = performance.now();
      const { status, stderr } = spawnSync(process.execPath, [cliPath, ...args], { env, encoding: 'utf8' });
      if (status !== expected) throw new Error(`ledgerline ${args.join(' ')} exited ${status}: ${stderr}`);
      return performance.now() - started;
    };
    const started: number[] = [];
    const whole: number[] = [];
    for (let run = 0; run < 3; run += 1) {
      // An unknown command exits before connecting: node's start and the CLI's imports alone.
      started.push(wholeCommand(['no-such-command'], 2));
      whole.push(wholeCommand(['projections', 'status'], 0));
    }
    console.log(`the whole \`ledgerline projections status\` process: ${fmt(whole)}; of which starting node and importing the CLI (an unknown command, same run): ${fmt(started)}`);

    const previous = performance.now();
    const counted = await previousLag(connection.db, store);
    console.log(`reference, same run — the previous release's count (readAll of up to 100k per version behind): ${(performance.now() - previous).toFixed(0)} ms, lags ${counted.join(', ')}`);
    const exact = await Promise.all(spots.map((spot) => exactEventsAfter(connection.db, spot)));
    const estimates = await Promise.all(spots.map((spot) => store.approximateEventsBetween(spot, head)));
    console.log(`exact events behind at start / middle / head: ${exact.join(' / ')}; the estimate said ${estimates.join(' / ')}`);
  } finally {
    await close();
  }
}

type Db = Parameters<typeof readProjectionVersions>[0];

async function positionOf(db: Db, offset: number): Promise<GlobalPosition> {
  const result = await sql<{ commit: string; prepare: string }>`
    SELECT transaction_id::text AS commit, global_position::text AS prepare FROM events ORDER BY transaction_id, global_position OFFSET ${offset} LIMIT 1`.execute(db);
  const row = result.rows[0] as { commit: string; prepare: string };
  return { commit: BigInt(row.commit), prepare: BigInt(row.prepare) };
}

async function exactEventsAfter(db: Db, position: GlobalPosition): Promise<number> {
  const result = await sql<{ count: string }>`
    SELECT count(*) AS count FROM events WHERE (transaction_id, global_position) > (${position.commit.toString()}::text::xid8, ${position.prepare.toString()}::bigint)`.execute(db);
  return Number(result.rows[0]?.count);
}

/** The lag column as it was counted before: every version behind the head reads up to 100k events. */
async function previousLag(db: Db, store: EventStore): Promise<string[]> {
  const head = await store.headPosition();
  const lags: string[] = [];
  for (const row of await readProjectionVersions(db)) {
    const lag = row.state === 'superseded' || comparePositions(row.position, head) >= 0 ? 0 : (await store.readAll({ after: row.position, maxCount: 100_000 })).length;
    lags.push(`${row.name}@${formatPosition(row.position)}=${lag}${lag === 100_000 ? '+' : ''}`);
  }
  return lags;
}

function fmt(values: readonly number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  return `median ${(sorted[Math.floor(sorted.length / 2)] as number).toFixed(1)} ms (runs ${values.map((ms) => ms.toFixed(1)).join(', ')} ms)`;
}

await main();
