import { type Kysely, sql } from 'kysely';
import { PROJECTIONS } from '../../../projections/index.js';
import { comparePositions, type GlobalPosition, START_POSITION } from '../../../src/core/events.js';
import { connectDatabase, type DatabaseConnection } from '../../../src/infrastructure/database/database.js';
import type { Database } from '../../../src/infrastructure/database/schema.js';
import type { EventStore } from '../../../src/infrastructure/event-store/event-store.port.js';
import { PostgresEventStore } from '../../../src/infrastructure/event-store/postgres-event-store.js';
import { withUpcasting } from '../../../src/infrastructure/event-store/upcasting-event-store.js';
import { EVENT_SCHEMAS } from '../../../src/event-upcasters.js';
import { readModelSearchPath } from '../../../src/infrastructure/projections/projection.js';

/** The test's own view of the service's database: its read models, checkpoints and event store. */
export interface ServiceDatabase {
  readonly connection: DatabaseConnection;
  readonly db: Kysely<Database>;
  readonly store: EventStore;
  close(): Promise<void>;
}

export function openServiceDatabase(url: string): ServiceDatabase {
  const connection = connectDatabase(url, { max: 4, searchPath: readModelSearchPath(PROJECTIONS) });
  const store = withUpcasting(PostgresEventStore.open(url, { max: 2 }), EVENT_SCHEMAS);
  return {
    connection,
    db: connection.db,
    store,
    async close() {
      await store.close();
      await connection.close();
    },
  };
}

/** The newest event committed to the store, visible to the feed or not yet (as test-app's settle reads it). */
export async function lastCommittedPosition(db: Kysely<Database>): Promise<GlobalPosition> {
  const { rows } = await sql<{ commit: string; prepare: string }>`
    SELECT transaction_id::text AS commit, global_position::text AS prepare FROM events ORDER BY transaction_id DESC, global_position DESC LIMIT 1`.execute(db);
  return rows[0] ? { commit: BigInt(rows[0].commit), prepare: BigInt(rows[0].prepare) } : START_POSITION;
}

/** Each projection of this release: its checkpoint and how many events it has applied. */
export async function checkpoints(db: Kysely<Database>): Promise<Map<string, { position: GlobalPosition; applied: number }>> {
  const rows = await db.selectFrom('projection_versions').select(['name', 'version', 'position_commit', 'position_prepare', 'events_applied']).execute();
  const current = new Map(PROJECTIONS.map((projection) => [projection.name, projection.version]));
  return new Map(
    rows
      .filter((row) => current.get(row.name) === row.version)
      .map((row) => [row.name, { position: { commit: BigInt(row.position_commit), prepare: BigInt(row.position_prepare) }, applied: Number(row.events_applied) }]),
  );
}

/** How many of this release's projections have not reached `position`. */
export async function projectionsBehind(db: Kysely<Database>, position: GlobalPosition): Promise<number> {
  const reached = await checkpoints(db);
  return PROJECTIONS.filter((projection) => {
    const checkpoint = reached.get(projection.name);
    return !checkpoint || comparePositions(checkpoint.position, position) < 0;
  }).length;
}

/** Polls until every projection has reached `position`; resolves to the milliseconds that took. */
export async function waitCaughtUp(db: Kysely<Database>, position: GlobalPosition, timeoutMs = 120_000): Promise<number> {
  const started = performance.now();
  for (;;) {
    const behind = await projectionsBehind(db, position).catch(() => PROJECTIONS.length);
    if (behind === 0) return performance.now() - started;
    if (performance.now() - started > timeoutMs) throw new Error(`${behind} projections had not caught up after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
