import { randomBytes, randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { type Decider, foldOwnStream } from '../src/core/decider.js';
import type { DomainEvent } from '../src/core/events.js';
import { EVENT_SCHEMAS } from '../src/event-upcasters.js';
import { connectDatabase } from '../src/infrastructure/database/database.js';
import { migrate } from '../src/infrastructure/database/migrate.js';
import type { EventStore } from '../src/infrastructure/event-store/event-store.port.js';
import { type CommandContext, handleCommand, metadataFor } from '../src/infrastructure/event-store/handle-command.js';
import { PostgresEventStore } from '../src/infrastructure/event-store/postgres-event-store.js';
import { streamStateCacheOf } from '../src/infrastructure/event-store/stream-state-cache.js';
import { withUpcasting } from '../src/infrastructure/event-store/upcasting-event-store.js';
import { type AccountCommand, accountDecider } from '../src/modules/accounts/account.decider.js';
import { accountStreamId } from '../src/modules/accounts/account.js';

/**
 * One balance PATCH (UpdateManualBalance: ManualBalanceUpdated + BalanceSnapshotTaken) on a manual
 * account whose stream holds 2 events, and on one that holds 5,000, through the service's store
 * (PostgreSQL with the upcasting layer). Three ways each, in the same run:
 *  - before: the previous handleCommand (read the whole stream, fold it), kept here as the reference;
 *  - cold: today's handleCommand with the stream not in the cache (its first command in a process);
 *  - warm: today's handleCommand, the usual case: only the events after the cached revision are read.
 * Every command appends 2 events, so the long stream grows by 2 × runs during the run.
 * `npm run bench:stream-cache`; BENCH_DATABASE_URL names an admin connection (scratch database created and dropped).
 */
const LONG = 5_000;
const RUNS = Number(process.env.BENCH_RUNS ?? 200);

async function main(): Promise<void> {
  const adminUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const name = `ledgerline_bench_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const connection = connectDatabase(url.toString(), { max: 2 });
  const postgres = PostgresEventStore.open(url.toString(), { max: 4 });
  const store = withUpcasting(postgres, EVENT_SCHEMAS);
  try {
    await migrate(connection.db, []);
    const userId = randomUUID();
    console.log(`One balance PATCH (2 events appended) on a manual account's stream, ${RUNS} commands each, median / p95 / max:`);
    for (const length of [2, LONG]) {
      // Each way on an account of its own, so each starts from the same length.
      const [forBefore, forCold, forWarm] = [await createAccount(store, userId, length), await createAccount(store, userId, length), await createAccount(store, userId, length)];
      const before = await time(RUNS, (i) => handleCommandWithoutCache(store, accountStreamId(forBefore), accountDecider, update(forBefore, i), context(userId)));
      const cold = await time(RUNS, (i) => {
        streamStateCacheOf(store).delete(accountDecider, accountStreamId(forCold));
        return handleCommand(store, accountStreamId(forCold), accountDecider, update(forCold, i), context(userId), 'Account');
      });
      await handleCommand(store, accountStreamId(forWarm), accountDecider, update(forWarm, -1), context(userId), 'Account');
      const warm = await time(RUNS, (i) => handleCommand(store, accountStreamId(forWarm), accountDecider, update(forWarm, i), context(userId), 'Account'));
      console.log(`  stream of ${String(length).padStart(5)} → ${String(length + 2 * RUNS).padStart(5)} events: before ${before}   cold ${cold}   warm ${warm}`);
    }
  } finally {
    await store.close();
    await connection.close();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

const context = (userId: string): CommandContext => ({ userId, actor: 'user', requestId: randomUUID(), now: new Date('2026-11-23T12:00:00.000Z') });
const update = (accountId: string, i: number): AccountCommand => ({ type: 'UpdateManualBalance', accountId, current: `${1000 + i}.00`, today: '2026-11-23' });

/** A manual bank account whose stream holds `length` events (≥ 2: its creation and first snapshot, then balance updates and snapshots). */
async function createAccount(store: EventStore, userId: string, length: number): Promise<string> {
  const extra = length - 2;
  const accountId = randomUUID();
  const streamId = accountStreamId(accountId);
  const data = { accountId, name: 'Bench', type: 'bank' as const, subtype: 'checking', currency: 'USD', mask: null, institutionName: null, currentBalance: '0.00', creditLimit: null };
  await handleCommand(store, streamId, accountDecider, { type: 'CreateManualAccount', data, today: '2026-01-01' }, context(userId), 'Account');
  const metadata = metadataFor(context(userId));
  for (let done = 0; done < extra; done += 500) {
    const events = Array.from({ length: Math.min(500, extra - done) }, (_, i) =>
      (done + i) % 2 === 0
        ? { type: 'ManualBalanceUpdated', data: { accountId, current: `${done + i}.00` }, metadata }
        : { type: 'BalanceSnapshotTaken', data: { accountId, date: '2026-01-01', currentBalance: `${done + i}.00`, availableBalance: `${done + i}.00`, creditLimit: null }, metadata },
    );
    await store.appendToStream(streamId, events, BigInt(done + 1));
  }
  return accountId;
}

async function time(runs: number, command: (i: number) => Promise<unknown>): Promise<string> {
  const ms: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    const started = performance.now();
    await command(i);
    ms.push(performance.now() - started);
  }
  ms.sort((a, b) => a - b);
  const at = (q: number) => (ms[Math.min(ms.length - 1, Math.floor(q * ms.length))] as number).toFixed(2);
  return `${at(0.5)} / ${at(0.95)} / ${(ms[ms.length - 1] as number).toFixed(1)} ms`;
}

/** handleCommand as it was before the cache (whole stream read and folded every time), conflicts aside: the reference. */
async function handleCommandWithoutCache<Command, Event extends DomainEvent, State>(
  store: EventStore,
  streamId: string,
  decider: Decider<Command, Event, State>,
  command: Command,
  context: CommandContext,
): Promise<void> {
  const history = await store.readStream(streamId);
  const state = foldOwnStream(decider, history, context.userId);
  const events = decider.decide(command, state);
  if (events.length === 0) return;
  const metadata = metadataFor(context);
  await store.appendToStream(streamId, events.map((event) => ({ type: event.type, data: event.data, metadata })), history.length === 0 ? 'no_stream' : history[history.length - 1].revision);
}

await main();
