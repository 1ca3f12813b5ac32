import { sql } from 'kysely';
import type { DatabaseConnection } from '../../src/infrastructure/database/database.js';
import { migrate } from '../../src/infrastructure/database/migrate.js';
import { PostgresEventStore } from '../../src/infrastructure/event-store/postgres-event-store.js';
import { CheckpointWatch } from '../../src/infrastructure/projections/checkpoint-watch.js';
import { type ProjectionDefinition, projectionSchema } from '../../src/infrastructure/projections/projection.js';
import { ProjectionDaemon, type ProjectionLog } from '../../src/infrastructure/projections/projection-daemon.js';
import { seedLedgerEvents } from '../../bench/support/ledger-seed.js';
import { createMigratedDatabase } from './test-database.js';

/** One projection running for real on a fresh migrated database: what a projection's int-spec feeds events to. */
export interface ProjectionFixture {
  readonly connection: DatabaseConnection;
  readonly store: PostgresEventStore;
  readonly watch: CheckpointWatch;
  /**
   * Builds the projection's next version beside the live one from `$all` alone, waits until it has
   * caught up with the head, and gives each table's rows in both versions, ordered by `orderBy[table]`.
   * Once the new version is live it supersedes the fixture's, whose runner then stops: call it last.
   */
  rebuildBeside(orderBy: Readonly<Record<string, string>>): Promise<RebuiltTable[]>;
  close(): Promise<void>;
}

export interface RebuiltTable {
  readonly table: string;
  readonly original: Record<string, unknown>[];
  readonly rebuilt: Record<string, unknown>[];
}

/** Parking retries are 10 ms apart, so an event the projection cannot apply parks at once. */
export async function startProjectionFixture(projection: ProjectionDefinition): Promise<ProjectionFixture> {
  const { database, connection } = await createMigratedDatabase();
  const store = new PostgresEventStore(connection.pool);
  const watch = new CheckpointWatch(connection.db, connection.pool, [projection]);
  await watch.start();
  let daemon = new ProjectionDaemon(connection, store, [projection], watch, { standbyPollMs: 50 });
  daemon.start();
  const rowsOf = async (version: number, table: string, orderBy: string) => {
    const qualified = sql.table(`${projectionSchema({ name: projection.name, version })}.${table}`);
    return (await sql<Record<string, unknown>>`SELECT * FROM ${qualified} ORDER BY ${sql.raw(orderBy)}`.execute(connection.db)).rows;
  };
  return {
    connection,
    store,
    watch,
    async rebuildBeside(orderBy) {
      const next = { ...projection, version: projection.version + 1 };
      await migrate(connection.db, [next]);
      const nextWatch = new CheckpointWatch(connection.db, connection.pool, [next]);
      await nextWatch.start();
      // The next release's daemon: it takes the lease over from this one, which stops as an old release would.
      await daemon.stop();
      daemon = new ProjectionDaemon(connection, store, [next], nextWatch, { standbyPollMs: 50 });
      daemon.start();
      try {
        const head = await store.readAll({ maxCount: 100_000 });
        if (!(await nextWatch.waitFor(head[head.length - 1].position, 30_000))) throw new Error(`${projection.name} v${next.version} did not catch up with the head within 30 s`);
        const tables: RebuiltTable[] = [];
        for (const table of projection.tables) {
          tables.push({ table, original: await rowsOf(projection.version, table, orderBy[table]), rebuilt: await rowsOf(next.version, table, orderBy[table]) });
        }
        return tables;
      } finally {
        await daemon.stop();
        await nextWatch.close();
      }
    },
    async close() {
      await daemon.stop();
      await watch.close();
      await store.close();
      await connection.close();
      await database.drop();
    },
  };
}

/** A seeded ledger on a fresh migrated database, with the given projections running and caught up with it. */
export interface ProjectedLedger {
  readonly connection: DatabaseConnection;
  readonly store: PostgresEventStore;
  readonly watch: CheckpointWatch;
  close(): Promise<void>;
}

export async function startProjectedLedger(
  projections: readonly ProjectionDefinition[],
  options: { readonly events: number; readonly batchSize?: number; readonly timeoutMs: number; readonly log?: ProjectionLog },
): Promise<ProjectedLedger> {
  const { database, connection } = await createMigratedDatabase();
  const store = new PostgresEventStore(connection.pool);
  const watch = new CheckpointWatch(connection.db, connection.pool, projections);
  await watch.start();
  await seedLedgerEvents(connection.db, options.events);
  const daemonOptions = { ...(options.batchSize === undefined ? {} : { batchSize: options.batchSize, buildBatchSize: options.batchSize }), ...(options.log ? { log: options.log } : {}) };
  const daemon = new ProjectionDaemon(connection, store, projections, watch, daemonOptions);
  daemon.start();
  if (!(await watch.waitFor(await store.headPosition(), options.timeoutMs))) throw new Error(`the projections did not catch up with the seeded ledger within ${options.timeoutMs} ms`);
  return {
    connection,
    store,
    watch,
    async close() {
      await daemon.stop();
      await watch.close();
      await store.close();
      await connection.close();
      await database.drop();
    },
  };
}
