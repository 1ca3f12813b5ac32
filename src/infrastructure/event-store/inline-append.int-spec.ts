import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { WrongExpectedRevisionError } from '../../core/events.js';
import { createTestDatabase, type TestDatabase } from '../../../test/support/test-database.js';
import { connectDatabase, type DatabaseConnection } from '../database/database.js';
import { migrate } from '../database/migrate.js';
import { type ProjectionDefinition, readModelSearchPath } from '../projections/projection.js';
import { eventMetadata } from '../projections/recording-projection.test-support.js';
import { PostgresEventStore } from './postgres-event-store.js';

/** An inline read model of `Counted` events: a row per stream with the revision it shows and a running total. */
const counters: ProjectionDefinition = {
  name: 'counters',
  version: 1,
  mode: 'inline',
  tables: ['counters'],
  eventTypes: ['Counted'],
  async createTables(db) {
    await sql`CREATE TABLE counters (stream_id text PRIMARY KEY, revision bigint NOT NULL, total int NOT NULL)`.execute(db);
  },
  async apply(trx, events) {
    for (const event of events) {
      const by = (event.data as { by: number }).by;
      if (by < 0) throw new Error('counters cannot go down');
      await sql`INSERT INTO counters (stream_id, revision, total) VALUES (${event.streamId}, ${Number(event.revision)}, ${by})
                ON CONFLICT (stream_id) DO UPDATE SET revision = excluded.revision, total = counters.total + excluded.total`.execute(trx);
    }
  },
};

let database: TestDatabase;
let connection: DatabaseConnection;
let store: PostgresEventStore;

beforeAll(async () => {
  database = await createTestDatabase();
  connection = connectDatabase(database.url, { searchPath: readModelSearchPath([counters]) });
  await migrate(connection.db, [counters]);
  await sql`UPDATE projection_versions SET caught_up_at = now()`.execute(connection.db);
  store = PostgresEventStore.open(database.url, { inline: [counters] });
  await store.start();
});

afterAll(async () => {
  await store.close();
  await connection.close();
  await database.drop();
});

const counted = (by: number) => ({ type: 'Counted', data: { by }, metadata: eventMetadata() });
const counter = async (streamId: string) => (await sql<{ revision: number; total: number }>`SELECT revision, total FROM counters WHERE stream_id = ${streamId}`.execute(connection.db)).rows[0];
const holds = (condition: boolean) => sql`${condition}`.compile(connection.db);

describe('an inline append on PostgreSQL', () => {
  it('projects its events in its own transaction and says so on the result and on the stored events', async () => {
    const streamId = `counter-${randomUUID()}`;
    const first = await store.appendToStream(streamId, [counted(2), counted(3)], 'no_stream');
    const second = await store.appendToStream(streamId, [counted(5)], first.nextExpectedRevision);
    expect(first.appliedInline).toEqual(['counters@1']);
    expect(second.appliedInline).toEqual(['counters@1']);
    expect(await counter(streamId)).toEqual({ revision: 2, total: 10 });
    expect((await store.readStream(streamId)).map((event) => event.appliedInline)).toEqual([['counters@1'], ['counters@1'], ['counters@1']]);
  });

  it('stores the events all the same, projecting none of them, when its read model refuses one: they are the daemon’s to apply (or park)', async () => {
    const streamId = `counter-${randomUUID()}`;
    const first = await store.appendToStream(streamId, [counted(1)], 'no_stream');
    const refused = await store.appendToStream(streamId, [counted(4), counted(-1)], first.nextExpectedRevision);
    expect(refused.appliedInline).toEqual([]);
    expect((await store.readStream(streamId)).map((event) => event.appliedInline)).toEqual([['counters@1'], undefined, undefined]);
    expect(await counter(streamId)).toEqual({ revision: 0, total: 1 });
  });

  it('does not wait long for a read model someone else holds: the events are stored, left to the daemon', async () => {
    const streamId = `counter-${randomUUID()}`;
    const holder = await connection.pool.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('LOCK TABLE projection_counters_v1.counters IN EXCLUSIVE MODE');
      const appended = await store.appendToStream(streamId, [counted(3)], 'no_stream');
      expect(appended.appliedInline).toEqual([]);
    } finally {
      await holder.query('COMMIT');
      holder.release();
    }
    expect(await counter(streamId)).toBeUndefined();
  });

  it('refuses a stale expected revision as a conflict, projecting nothing', async () => {
    const streamId = `counter-${randomUUID()}`;
    await store.appendToStream(streamId, [counted(1), counted(1)], 'no_stream');
    await expect(store.appendToStream(streamId, [counted(7)], 0n)).rejects.toBeInstanceOf(WrongExpectedRevisionError);
    await expect(store.appendToStream(streamId, [counted(7)], 5n)).rejects.toBeInstanceOf(WrongExpectedRevisionError);
    await expect(store.appendToStream(streamId, [counted(7)], 'no_stream')).rejects.toBeInstanceOf(WrongExpectedRevisionError);
    expect(await counter(streamId)).toEqual({ revision: 1, total: 2 });
  });

  it('checks its guards in the same transaction: the first that does not hold throws its refusal, and nothing is appended', async () => {
    const streamId = `counter-${randomUUID()}`;
    const refused = store.appendToStream(streamId, [counted(1)], 'no_stream', {
      guards: [
        { condition: holds(true), refusal: () => new Error('first') },
        { condition: holds(false), refusal: () => new Error('second') },
        { condition: holds(false), refusal: () => new Error('third') },
      ],
    });
    await expect(refused).rejects.toThrow('second');
    expect(await store.readStream(streamId)).toEqual([]);
    const allowed = await store.appendToStream(streamId, [counted(1)], 'no_stream', { guards: [{ condition: holds(true), refusal: () => new Error('never') }] });
    expect(allowed.nextExpectedRevision).toBe(0n);
  });

  it('leaves to the daemon a stream whose previous event its read model does not show yet, so nothing is projected out of order', async () => {
    const streamId = `counter-${randomUUID()}`;
    // Written by a store without inline read models (another release): the daemon's to apply.
    const plain = new PostgresEventStore(connection.pool);
    const elsewhere = await plain.appendToStream(streamId, [counted(1)], 'no_stream');
    await plain.close();
    const next = await store.appendToStream(streamId, [counted(1)], elsewhere.nextExpectedRevision);
    expect(elsewhere.appliedInline).toEqual([]);
    expect(next.appliedInline).toEqual([]);
    expect(await counter(streamId)).toBeUndefined();
    // Once the daemon has passed the previous event, appends go inline again.
    await sql`UPDATE projection_versions SET position_commit = ${next.position.commit.toString()}, position_prepare = ${next.position.prepare.toString()}`.execute(connection.db);
    const third = await store.appendToStream(streamId, [counted(1)], next.nextExpectedRevision);
    expect(third.appliedInline).toEqual(['counters@1']);
  });

  it('creates many streams and projects them in one transaction, naming the ones that existed', async () => {
    const [a, b] = [`counter-${randomUUID()}`, `counter-${randomUUID()}`];
    await store.appendToStream(a, [counted(1)], 'no_stream');
    const result = await store.appendToNewStreams([{ streamId: a, events: [counted(100)] }, { streamId: b, events: [counted(2), counted(3)] }]);
    expect(result.existing).toEqual([a]);
    expect(result.appliedInline).toEqual(['counters@1']);
    expect(await counter(a)).toEqual({ revision: 0, total: 1 });
    expect(await counter(b)).toEqual({ revision: 1, total: 5 });
  });
});
