import { createMigratedDatabase, type TestDatabase } from '../../../test/support/test-database.js';
import type { DatabaseConnection } from '../database/database.js';
import { eventStoreContract } from './event-store-contract.test-support.js';
import { appendStatement, PostgresEventStore } from './postgres-event-store.js';

let database: TestDatabase;
let connection: DatabaseConnection;
let store: PostgresEventStore;

beforeAll(async () => {
  ({ database, connection } = await createMigratedDatabase());
  store = new PostgresEventStore(connection.pool);
});

afterAll(async () => {
  await store.close();
  await connection.close();
  await database.drop();
});

eventStoreContract('PostgreSQL', () => ({
  store,
  async openAppend(streamId, events) {
    const client = await connection.pool.connect();
    await client.query('BEGIN');
    const { text, values } = appendStatement(streamId, events, 'no_stream');
    await client.query(text, values);
    return {
      async commit() {
        await client.query('COMMIT');
        client.release();
      },
    };
  },
}));

describe('PostgreSQL events table', () => {
  it('refuses to change or delete a stored event', async () => {
    await expect(connection.pool.query("UPDATE events SET type = 'Tampered'")).rejects.toThrow(/append-only/);
    await expect(connection.pool.query('DELETE FROM events')).rejects.toThrow(/append-only/);
  });
});

describe('PostgreSQL global order', () => {
  it('orders by the transaction id as a number, also where its digits grow (99 before 100)', async () => {
    const metadata = JSON.stringify({ userId: 'u', actor: 'system', requestId: 'r', causationId: 'r', correlationId: 'r', occurredAt: '2026-11-22T00:00:00.000Z', schemaVersion: 1 });
    // Rows as two long-finished transactions with ids 99 and 100 would have written them; `after`
    // sits just below both, in the order the store itself uses.
    await connection.pool.query(
      `INSERT INTO events (transaction_id, event_id, stream_id, stream_revision, type, data, metadata)
       VALUES ('100'::xid8, gen_random_uuid(), 'digits-a', 0, 'Hundred', '{}', $1), ('99'::xid8, gen_random_uuid(), 'digits-b', 0, 'NinetyNine', '{}', $1)`,
      [metadata],
    );
    const read = await store.readAll({ after: { commit: 98n, prepare: 0n }, maxCount: 10 });
    expect(read.slice(0, 2).map((event) => event.type)).toEqual(['NinetyNine', 'Hundred']);
    // The earlier tests' events carry real, much larger ids: ordered as text, "99" would be the head.
    expect((await store.headPosition()).commit).toBeGreaterThan(100n);
  });
});
