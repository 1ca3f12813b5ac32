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
