import { type Kysely, sql } from 'kysely';
import { comparePositions, type GlobalPosition, START_POSITION } from '../../core/events.js';
import type { DatabaseConnection } from '../database/database.js';
import type { Database } from '../database/schema.js';
import type { EventStore } from '../event-store/event-store.port.js';
import { CHECKPOINT_CHANNEL } from './checkpoint-watch.js';
import { positionOf } from './parked-events.js';
import { INLINE_LOCK_KEY, type ProjectionDefinition, projectionSchema } from './projection.js';
import { acquireLease } from './lease.js';
import { analyzeSchema, readReplayBatch, REPLAY_BATCH_SIZE, schemaExists } from './projection-replay.js';
import { ProjectionSupersededError, projectionTransaction } from './projection-transaction.js';
import type { RebuildProgress } from './rebuild-progress.js';
import { applyReplayBatchIn, createReplaySchema, REPLAY_FAILURES_TABLE, type ReplayCursor, replayInto, skippedPositions } from './replay-schema.js';

/**
 * `projections rebuild` (decision 0019): `$all` replayed into a shadow schema while the live one
 * keeps serving and the service's runner keeps projecting into it; then, in one transaction under
 * the runner's apply lock, the shadow catches up with the head and takes the live schema's name.
 */

export interface RebuildOptions {
  readonly batchSize?: number;
  readonly onProgress?: (progress: RebuildProgress) => void;
  readonly now?: () => number;
}

export interface RebuildOutcome {
  readonly projection: string;
  readonly version: number;
  /** Picked up a shadow an earlier run left (a crash, an interrupted command). */
  readonly resumed: boolean;
  readonly position: GlobalPosition;
  readonly applied: number;
  /** Events the rebuilt model could not apply: now its open parked events. */
  readonly parked: number;
  /** Events of `$all` this run moved past, and how long it took. */
  readonly events: number;
  readonly elapsedMs: number;
}

/** A rebuild that must not start: the version is not live, or another rebuild of it is running. */
export class RebuildRefusedError extends Error {}

export function shadowSchema(projection: Pick<ProjectionDefinition, 'name' | 'version'>): string {
  return `${projectionSchema(projection)}_rebuild`;
}

/** How long a switch waits, its inline writers held off, for appends still open below the newest committed event. */
const INLINE_SWITCH_WAIT_MS = 5_000;

/**
 * One rebuild of a version at a time: whoever holds its lease (decision 0032) — released at the
 * end, taken over at once if the rebuilding process dies, so a killed rebuild can be resumed.
 */
export async function rebuildProjection(database: Pick<DatabaseConnection, 'db' | 'url'>, store: EventStore, projection: ProjectionDefinition, options: RebuildOptions = {}): Promise<RebuildOutcome> {
  if (projection.kind === 'reaction') throw new RebuildRefusedError(`${projection.name} is a reaction: its effects (queued jobs) are never replayed`);
  const lease = await acquireLease(database.url, `projection-rebuild:${projection.name}:${projection.version}`);
  if (!lease) throw new RebuildRefusedError(`a rebuild of ${projection.name} version ${projection.version} is already running`);
  try {
    return await rebuild(database.db, store, projection, options);
  } finally {
    await lease.release();
  }
}

async function rebuild(db: Kysely<Database>, store: EventStore, projection: ProjectionDefinition, options: RebuildOptions): Promise<RebuildOutcome> {
  const { name, version } = projection;
  const now = options.now ?? (() => Date.now());
  const started = now();
  await refuseUnlessLive(db, projection);
  const shadow = shadowSchema(projection);
  const { cursor: from, resumed } = await startOrResume(db, projection, shadow);
  const leaveOut = await skippedPositions(db, projection);
  const doneAtStart = (await store.approximateEventsBetween(START_POSITION, from.position)) ?? 0;
  let done = doneAtStart;
  let total: number | null = null;
  const report = (phase: RebuildProgress['phase']) => options.onProgress?.({ projection: name, done, total, doneAtStart, elapsedMs: now() - started, phase });
  const save = async (trx: Kysely<Database>, cursor: ReplayCursor) => {
    await trx
      .updateTable('projection_rebuilds')
      .set({ position_commit: cursor.position.commit.toString(), position_prepare: cursor.position.prepare.toString(), events_applied: String(cursor.applied), updated_at: sql<Date>`now()` })
      .where('name', '=', name)
      .where('version', '=', version)
      .execute();
  };
  const batchSize = options.batchSize ?? REPLAY_BATCH_SIZE;
  const replay = (cursor: ReplayCursor) =>
    replayInto(db, store, projection, shadow, cursor, {
      batchSize,
      leaveOut,
      save,
      onBatch: async (at, batch) => {
        done = (await store.approximateEventsBetween(START_POSITION, at.position)) ?? done;
        total = await store.approximateEventsBetween(START_POSITION, batch.head);
        report('replaying');
      },
    });
  let cursor = await replay(from);
  // Statistics for the loaded tables before they serve anyone; what comes after the load is small beside it.
  await analyzeSchema(db, shadow);
  cursor = await replay(cursor);
  report('switching');
  const { position, applied, parked } = await switchToShadow(db, store, projection, shadow, cursor, batchSize, leaveOut);
  await sql`DROP SCHEMA IF EXISTS ${sql.id(replacedSchema(projection))} CASCADE`.execute(db);
  done = (await store.approximateEventsBetween(START_POSITION, position)) ?? done;
  report('done');
  return { projection: name, version, resumed, position, applied, parked, events: done - doneAtStart, elapsedMs: now() - started };
}

async function refuseUnlessLive(db: Kysely<Database>, projection: ProjectionDefinition): Promise<void> {
  const { name, version } = projection;
  const row = await db.selectFrom('projection_versions').select(['caught_up_at', 'superseded_at']).where('name', '=', name).where('version', '=', version).executeTakeFirst();
  if (!row) throw new RebuildRefusedError(`${name} version ${version} has no checkpoint row: run \`ledgerline migrate\` first`);
  if (row.superseded_at) throw new RebuildRefusedError(`${name} version ${version} is superseded by a newer version: nothing reads it any more`);
  if (!row.caught_up_at) throw new RebuildRefusedError(`${name} version ${version} is still being built by the service (a first build already replays in bulk); rebuild it once it is live`);
}

/** The shadow an earlier run left, from where it got to; or a fresh one. */
async function startOrResume(db: Kysely<Database>, projection: ProjectionDefinition, shadow: string): Promise<{ cursor: ReplayCursor; resumed: boolean }> {
  const { name, version } = projection;
  const row = await db.selectFrom('projection_rebuilds').selectAll().where('name', '=', name).where('version', '=', version).executeTakeFirst();
  if (row && row.shadow_schema === shadow && (await schemaExists(db, shadow))) {
    return { cursor: { position: positionOf(row), applied: Number(row.events_applied) }, resumed: true };
  }
  await createReplaySchema(db, projection, shadow);
  await db
    .insertInto('projection_rebuilds')
    .values({ name, version, shadow_schema: shadow })
    .onConflict((conflict) =>
      conflict.columns(['name', 'version']).doUpdateSet({ shadow_schema: shadow, position_commit: '0', position_prepare: '0', events_applied: '0', started_at: sql<Date>`now()`, updated_at: sql<Date>`now()` }),
    )
    .execute();
  return { cursor: { position: START_POSITION, applied: 0 }, resumed: false };
}

function replacedSchema(projection: Pick<ProjectionDefinition, 'name' | 'version'>): string {
  return `${projectionSchema(projection)}_replaced`;
}

/**
 * One transaction holding the version's checkpoint row (the daemon's next batch of it waits): the
 * shadow applies what is left up to the head, its failures become the version's parked events,
 * the schemas trade names, and the checkpoint moves to the shadow's position. The daemon's next
 * batch reads that checkpoint under the same lock and carries on from it in the new tables.
 */
async function switchToShadow(
  db: Kysely<Database>,
  store: EventStore,
  projection: ProjectionDefinition,
  shadow: string,
  from: ReplayCursor,
  batchSize: number,
  leaveOut: ReadonlySet<string>,
): Promise<{ position: GlobalPosition; applied: number; parked: number }> {
  const { name, version } = projection;
  const live = projectionSchema(projection);
  const replaced = replacedSchema(projection);
  return projectionTransaction(db, projection, async (trx, checkpoint) => {
    const livePosition = checkpoint.position;
    let cursor = from;
    const catchUp = async () => {
      for (;;) {
        const batch = await readReplayBatch(store, projection, cursor.position, batchSize);
        cursor = await applyReplayBatchIn(trx, projection, shadow, cursor, batch, { leaveOut });
        if (batch.atEnd) return;
      }
    };
    await catchUp();
    if (projection.mode === 'inline') {
      // Inline writes in flight commit first, into the live tables; later ones wait for the switch. The
      // shadow takes every event up to the newest committed one, waiting out appends still open below it:
      // the daemon leaves an event applied inline out, so none may be left beyond the switch's position.
      await sql`SELECT pg_advisory_xact_lock(hashtextextended(${INLINE_LOCK_KEY(projection)}, 0))`.execute(trx);
      const committed = await store.committedHeadPosition();
      const deadline = Date.now() + INLINE_SWITCH_WAIT_MS;
      for (await catchUp(); comparePositions(cursor.position, committed) < 0; await catchUp()) {
        if (Date.now() > deadline) throw new Error(`${name} version ${version}: appends below the head stayed open ${INLINE_SWITCH_WAIT_MS} ms; run the rebuild again, it resumes`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    }
    if (comparePositions(cursor.position, livePosition) < 0) throw new Error(`${name} version ${version}: the live checkpoint is past the head of the feed`);
    const failures = sql.id(shadow, REPLAY_FAILURES_TABLE);
    // The rebuilt model's failures are the version's open parked events; one an operator skipped stays skipped.
    const parked = await sql`
      INSERT INTO parked_events (projection, version, position_commit, position_prepare, event_id, stream_id, event_type, user_id, request_id, correlation_id,
                                 error, attempts, first_failed_at, last_failed_at)
      SELECT ${name}, ${version}, position_commit, position_prepare, event_id, stream_id, event_type, user_id, request_id, correlation_id, error, 1, failed_at, failed_at
        FROM ${failures}
      ON CONFLICT (projection, version, position_commit, position_prepare) DO UPDATE
        SET error = excluded.error, attempts = parked_events.attempts + 1, last_failed_at = excluded.last_failed_at,
            status = CASE WHEN parked_events.status = 'skipped' THEN 'skipped' ELSE 'parked' END,
            resolved_at = CASE WHEN parked_events.status = 'skipped' THEN parked_events.resolved_at END,
            resolved_by = CASE WHEN parked_events.status = 'skipped' THEN parked_events.resolved_by END`.execute(trx);
    // The live version's open parked events that the rebuilt model did apply are resolved by it.
    await sql`
      UPDATE parked_events p SET status = 'retried', resolved_at = now(), resolved_by = 'rebuild'
       WHERE p.projection = ${name} AND p.version = ${version} AND p.status = 'parked'
         AND NOT EXISTS (SELECT 1 FROM ${failures} f WHERE f.position_commit = p.position_commit AND f.position_prepare = p.position_prepare)`.execute(trx);
    await sql`DROP TABLE ${failures}`.execute(trx);
    await sql`DROP SCHEMA IF EXISTS ${sql.id(replaced)} CASCADE`.execute(trx);
    await sql`ALTER SCHEMA ${sql.id(live)} RENAME TO ${sql.id(replaced)}`.execute(trx);
    await sql`ALTER SCHEMA ${sql.id(shadow)} RENAME TO ${sql.id(live)}`.execute(trx);
    const { commit, prepare } = cursor.position;
    await trx
      .updateTable('projection_versions')
      .set({ position_commit: commit.toString(), position_prepare: prepare.toString(), events_applied: cursor.applied, updated_at: sql<Date>`now()` })
      .where('name', '=', name)
      .where('version', '=', version)
      .execute();
    await trx.deleteFrom('projection_rebuilds').where('name', '=', name).where('version', '=', version).execute();
    await sql`SELECT pg_notify(${CHECKPOINT_CHANNEL}, ${`${name} ${version} ${commit} ${prepare}`})`.execute(trx);
    return { position: cursor.position, applied: cursor.applied, parked: Number(parked.numAffectedRows ?? 0n) };
  }, { schema: shadow }).catch((error: unknown) => {
    if (error instanceof ProjectionSupersededError) throw new RebuildRefusedError(`${name} version ${version} was superseded while it was being rebuilt`);
    throw error;
  });
}
