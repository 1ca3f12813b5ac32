import type { DatabaseConnection } from '../../src/infrastructure/database/database.js';
import { PostgresEventStore } from '../../src/infrastructure/event-store/postgres-event-store.js';
import { CheckpointWatch } from '../../src/infrastructure/projections/checkpoint-watch.js';
import type { ProjectionDefinition } from '../../src/infrastructure/projections/projection.js';
import { ProjectionRunner } from '../../src/infrastructure/projections/projection-runner.js';
import { createMigratedDatabase } from './test-database.js';

/** One projection running for real on a fresh migrated database: what a projection's int-spec feeds events to. */
export interface ProjectionFixture {
  readonly connection: DatabaseConnection;
  readonly store: PostgresEventStore;
  readonly watch: CheckpointWatch;
  close(): Promise<void>;
}

/** Parking retries are 10 ms apart, so an event the projection cannot apply parks at once. */
export async function startProjectionFixture(projection: ProjectionDefinition): Promise<ProjectionFixture> {
  const { database, connection } = await createMigratedDatabase();
  const store = new PostgresEventStore(connection.pool);
  const watch = new CheckpointWatch(connection.db, connection.pool, [projection]);
  await watch.start();
  const runner = new ProjectionRunner(connection, store, projection, watch, { parkingDelaysMs: [10, 10, 10] });
  runner.start();
  return {
    connection,
    store,
    watch,
    async close() {
      await runner.stop();
      await watch.close();
      await store.close();
      await connection.close();
      await database.drop();
    },
  };
}
