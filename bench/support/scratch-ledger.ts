import { type Kysely, sql } from 'kysely';
import { PROJECTIONS } from '../../projections/index.js';
import { connectDatabase, type DatabaseConnection } from '../../src/infrastructure/database/database.js';
import type { Database } from '../../src/infrastructure/database/schema.js';
import { migrate } from '../../src/infrastructure/database/migrate.js';
import { PostgresEventStore } from '../../src/infrastructure/event-store/postgres-event-store.js';
import { readModelSearchPath } from '../../src/infrastructure/projections/projection.js';
import { createScratchDatabase } from './service-process.js';

export interface ScratchLedger {
  readonly url: string;
  readonly connection: DatabaseConnection;
  readonly store: PostgresEventStore;
  /** Closes the connection and the store, then drops the database. */
  close(): Promise<void>;
}

/**
 * A migrated database of the bench's own on the server BENCH_DATABASE_URL (or TEST_DATABASE_URL)
 * names, with the service's connection settings and its PostgreSQL event store.
 */
export async function openScratchLedger(options: { storeConnections?: number } = {}): Promise<ScratchLedger> {
  const scratch = await createScratchDatabase('ledgerline_bench');
  const connection = connectDatabase(scratch.url, { max: 4, searchPath: readModelSearchPath(PROJECTIONS) });
  const store = PostgresEventStore.open(scratch.url, { max: options.storeConnections ?? 4 });
  const close = async () => {
    await store.close();
    await connection.close();
    await scratch.drop();
  };
  try {
    await migrate(connection.db, PROJECTIONS);
  } catch (error) {
    await close();
    throw error;
  }
  return { url: scratch.url, connection, store, close };
}

/** `count` events of a type no projection reads, 10 to a stream, written by the server itself 100,000 at a time. */
export async function seedFillerEvents(db: Kysely<Database>, count: number): Promise<void> {
  const metadata = JSON.stringify({ userId: 'bench', actor: 'system', requestId: 'bench', causationId: 'bench', correlationId: 'bench', occurredAt: '2026-11-23T00:00:00.000Z', schemaVersion: 1 });
  for (let from = 0; from < count; from += 100_000) {
    await sql`
      INSERT INTO events (event_id, stream_id, stream_revision, type, data, metadata)
      SELECT gen_random_uuid(), 'bench-' || (g / 10), g % 10, 'BenchHappened', jsonb_build_object('n', g), ${metadata}::jsonb
        FROM generate_series(${from}::bigint, ${Math.min(from + 100_000, count) - 1}::bigint) AS g`.execute(db);
  }
}
