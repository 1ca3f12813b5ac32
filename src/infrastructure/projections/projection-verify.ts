import { randomBytes } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import { type GlobalPosition, START_POSITION } from '../../core/events.js';
import type { Database } from '../database/schema.js';
import type { EventStore } from '../event-store/event-store.port.js';
import { positionOf } from './parked-events.js';
import { type ProjectionDefinition, projectionSchema } from './projection.js';
import { checksumColumns, checksumTable } from './projection-checksum.js';
import { schemaTables } from './projection-replay.js';
import { createReplaySchema, dropReplaySchema, replayInto, skippedPositions } from './replay-schema.js';

export interface TableVerification {
  readonly table: string;
  readonly liveRows: number;
  readonly replayRows: number;
  readonly liveChecksum: string;
  readonly replayChecksum: string;
  readonly agree: boolean;
}

export interface ProjectionVerification {
  readonly projection: string;
  readonly version: number;
  /** Where both sides were compared: the live checkpoint, with the runner held still. */
  readonly position: GlobalPosition;
  readonly agree: boolean;
  readonly tables: TableVerification[];
}

/**
 * Replays `$all` (less the events operators skipped) into a scratch schema up to the live
 * version's checkpoint and compares the two, table by table (checksums of `projection-checksum.ts`). The bulk of the replay runs beside the
 * live runner; at the end the runner's apply lock is held (a session lock on one connection) just
 * long enough to catch the replay up to the checkpoint and take a snapshot of the live tables, so
 * both sides are at the same position while the runner goes on.
 */
export async function verifyProjection(db: Kysely<Database>, store: EventStore, projection: ProjectionDefinition): Promise<ProjectionVerification> {
  const live = projectionSchema(projection);
  const scratch = `${live}_verify_${randomBytes(3).toString('hex')}`;
  await createReplaySchema(db, projection, scratch);
  try {
    const leaveOut = await skippedPositions(db, projection);
    let cursor = await replayInto(db, store, projection, scratch, { position: START_POSITION, applied: 0 }, { upTo: await liveCheckpoint(db, projection), leaveOut });
    return await db.connection().execute(async (connection) => {
      const lock = `projection-apply:${projection.name}:${projection.version}`;
      await sql`SELECT pg_advisory_lock(hashtext(${lock}))`.execute(connection);
      let locked = true;
      const unlock = async () => {
        if (!locked) return;
        locked = false;
        await sql`SELECT pg_advisory_unlock(hashtext(${lock}))`.execute(connection);
      };
      try {
        const position = await liveCheckpoint(connection, projection);
        cursor = await replayInto(connection, store, projection, scratch, cursor, { upTo: position, leaveOut: await skippedPositions(connection, projection) });
        // The snapshot is taken by the first statement: the live tables as of `position`, whatever the runner commits next.
        await sql`BEGIN ISOLATION LEVEL REPEATABLE READ`.execute(connection);
        try {
          await sql`SELECT 1`.execute(connection);
          await unlock();
          const tables: TableVerification[] = [];
          for (const table of await schemaTables(connection, live)) tables.push(await compareTable(connection, projection, live, scratch, table));
          await sql`COMMIT`.execute(connection);
          return { projection: projection.name, version: projection.version, position, agree: tables.every((table) => table.agree), tables };
        } catch (error) {
          await sql`ROLLBACK`.execute(connection);
          throw error;
        }
      } finally {
        await unlock();
      }
    });
  } finally {
    await dropReplaySchema(db, scratch);
  }
}

async function compareTable(db: Kysely<Database>, projection: ProjectionDefinition, live: string, scratch: string, table: string): Promise<TableVerification> {
  const columns = await checksumColumns(db, live, table, projection.checksumExcludes?.[table]);
  const ofLive = await checksumTable(db, live, table, columns);
  const ofReplay = await checksumTable(db, scratch, table, columns);
  return {
    table,
    liveRows: ofLive.rows,
    replayRows: ofReplay.rows,
    liveChecksum: ofLive.checksum,
    replayChecksum: ofReplay.checksum,
    agree: ofLive.rows === ofReplay.rows && ofLive.checksum === ofReplay.checksum,
  };
}

async function liveCheckpoint(db: Kysely<Database>, projection: Pick<ProjectionDefinition, 'name' | 'version'>): Promise<GlobalPosition> {
  const row = await db
    .selectFrom('projection_versions')
    .select(['position_commit', 'position_prepare'])
    .where('name', '=', projection.name)
    .where('version', '=', projection.version)
    .executeTakeFirst();
  if (!row) throw new Error(`Projection ${projection.name} version ${projection.version} has no checkpoint row: run migrate first`);
  return positionOf(row);
}
