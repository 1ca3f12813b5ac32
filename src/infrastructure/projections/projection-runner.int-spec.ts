import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { createTestDatabase, type TestDatabase } from '../../../test/support/test-database.js';
import { type GlobalPosition, type RecordedEvent, START_POSITION } from '../../core/events.js';
import { connectDatabase, type DatabaseConnection } from '../database/database.js';
import { migrate } from '../database/migrate.js';
import { PostgresEventStore } from '../event-store/postgres-event-store.js';
import { CheckpointWatch } from './checkpoint-watch.js';
import type { ProjectionDefinition } from './projection.js';
import { ProjectionRunner } from './projection-runner.js';

/** Records every event it applies; a duplicate or a gap shows in the table. */
function recordingProjection(failOnBatch?: { batch: number }, eventTypes = Array.from({ length: 60 }, (_, i) => `Happened${i}`)): ProjectionDefinition {
  let batches = 0;
  return {
    name: 'recording',
    version: 1,
    tables: ['recorded_events'],
    eventTypes,
    async createTables(db) {
      await sql`CREATE TABLE recorded_events (seq bigint GENERATED ALWAYS AS IDENTITY, event_id uuid NOT NULL, type text NOT NULL)`.execute(db);
    },
    async apply(trx, events: readonly RecordedEvent[]) {
      batches += 1;
      for (const [index, event] of events.entries()) {
        await sql`INSERT INTO recorded_events (event_id, type) VALUES (${event.id}, ${event.type})`.execute(trx);
        // Dies half-way through a batch: what it wrote must vanish with it.
        if (failOnBatch && batches === failOnBatch.batch && index === Math.floor(events.length / 2)) throw new Error('projector killed mid-batch');
      }
    },
  };
}

const metadata = () => ({
  userId: randomUUID(),
  actor: 'system' as const,
  requestId: randomUUID(),
  causationId: randomUUID(),
  correlationId: randomUUID(),
  occurredAt: new Date().toISOString(),
  schemaVersion: 1,
});

let database: TestDatabase;
let connection: DatabaseConnection;
let store: PostgresEventStore;

beforeEach(async () => {
  database = await createTestDatabase();
  connection = connectDatabase(database.url, { max: 10 });
  await migrate(connection.db, [recordingProjection()]);
  store = new PostgresEventStore(connection.pool);
});

afterEach(async () => {
  await store.close();
  await connection.close();
  await database.drop();
});

let lastAppended: GlobalPosition = START_POSITION;

/** Appends one event per new stream; `lastAppended` is where a reader has seen them all. */
async function appendEvents(count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const id = randomUUID();
    ids.push(id);
    const result = await store.appendToStream(`thing-${randomUUID()}`, [{ id, type: `Happened${i}`, data: { i }, metadata: metadata() }], 'no_stream');
    lastAppended = result.position;
  }
  return ids;
}

async function recorded(): Promise<string[]> {
  const result = await sql<{ event_id: string }>`SELECT event_id FROM recorded_events ORDER BY seq`.execute(connection.db);
  return result.rows.map((row) => row.event_id);
}

describe('projection runner', () => {
  it('applies nothing twice and loses nothing when a projector dies between and inside batches', async () => {
    const ids = await appendEvents(60);
    const watch = new CheckpointWatch(connection.db, connection.pool, ['recording']);
    await watch.start();
    const errors: unknown[] = [];
    const dying = new ProjectionRunner(connection, store, recordingProjection({ batch: 4 }), watch, { batchSize: 10, onError: (e) => errors.push(e) });
    dying.start();
    await waitUntil(async () => errors.length > 0);
    await dying.stop();
    // Three whole batches committed with their checkpoint; the fourth rolled back entirely.
    expect(await recorded()).toEqual(ids.slice(0, 30));

    const restarted = new ProjectionRunner(connection, store, recordingProjection(), watch, { batchSize: 10 });
    restarted.start();
    expect(await watch.waitFor(lastAppended, 10_000)).toBe(true);
    await restarted.stop();
    await watch.close();
    expect(await recorded()).toEqual(ids);
  });

  it('only moves the checkpoint over batches with none of its event types, and still reaches the head', async () => {
    const ids = await appendEvents(12);
    const watch = new CheckpointWatch(connection.db, connection.pool, ['recording']);
    await watch.start();
    const runner = new ProjectionRunner(connection, store, recordingProjection(undefined, ['Happened3', 'Happened7']), watch, { batchSize: 4 });
    runner.start();
    expect(await watch.waitFor(lastAppended, 10_000)).toBe(true);
    await runner.stop();
    await watch.close();
    expect(await recorded()).toEqual([ids[3], ids[7]]);
  });

  it('rides out its database connections being killed, and still applies everything exactly once', async () => {
    const watch = new CheckpointWatch(connection.db, connection.pool, ['recording']);
    await watch.start();
    const runner = new ProjectionRunner(connection, store, recordingProjection(), watch, { batchSize: 5 });
    runner.start();
    try {
      await appendEvents(30);
      await sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`.execute(connection.db);
      // Pooled clients whose connection was killed fail once each; keep writing until they are replaced.
      for (let written = 0; written < 30; ) written += await appendEvents(1).then(() => 1, () => 0);
      expect(await watch.waitFor(lastAppended, 25_000)).toBe(true);
    } finally {
      await runner.stop();
      await watch.close();
    }
    const stored = await sql<{ event_id: string }>`SELECT event_id FROM events ORDER BY transaction_id, global_position`.execute(connection.db);
    expect(stored.rows.length).toBeGreaterThanOrEqual(60);
    expect(await recorded()).toEqual(stored.rows.map((row) => row.event_id));
  }, 45_000);

  it('applies every event exactly once with two runners (two instances) on one database', async () => {
    const watch = new CheckpointWatch(connection.db, connection.pool, ['recording']);
    await watch.start();
    const first = new ProjectionRunner(connection, store, recordingProjection(), watch, { batchSize: 7 });
    const second = new ProjectionRunner(connection, store, recordingProjection(), watch, { batchSize: 7 });
    first.start();
    second.start();
    const ids = await appendEvents(40);
    expect(await watch.waitFor(lastAppended, 10_000)).toBe(true);
    // Hand over: the leader stops, the standby takes the lease and carries on from the checkpoint.
    await first.stop();
    const more = await appendEvents(10);
    expect(await watch.waitFor(lastAppended, 10_000)).toBe(true);
    await second.stop();
    await watch.close();
    expect(await recorded()).toEqual([...ids, ...more]);
  });
});

async function waitUntil(condition: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
