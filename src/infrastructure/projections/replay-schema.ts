import { type Kysely, sql, type Transaction } from 'kysely';
import { formatPosition, type GlobalPosition } from '../../core/events.js';
import type { Database } from '../database/schema.js';
import type { EventStore } from '../event-store/event-store.port.js';
import type { ProjectionDefinition } from './projection.js';
import { printable } from './projection-failure.js';
import { type ReplayBatch, readReplayBatch, REPLAY_BATCH_SIZE, schemaTransaction } from './projection-replay.js';
import { applyIsolatingFailures } from './projection-transaction.js';

/**
 * A schema a replay builds beside the live one (a rebuild's shadow, a verification's scratch
 * copy): the projection's own tables, and the events it could not apply, kept with its progress
 * so that a resumed replay still knows them.
 */
export const REPLAY_FAILURES_TABLE = '_replay_failures';

export interface ReplayCursor {
  readonly position: GlobalPosition;
  /** Events of the projection's types applied so far (failures not counted). */
  readonly applied: number;
}

export interface ReplayOptions {
  readonly batchSize?: number;
  /** Stop here instead of at the head of the feed. */
  readonly upTo?: GlobalPosition;
  /** In each batch's transaction, after its events: record where the replay got to. */
  readonly save?: (trx: Kysely<Database>, cursor: ReplayCursor) => Promise<void>;
  /** Positions (formatPosition) an operator skipped: the live model is without them, so the replay is too. */
  readonly leaveOut?: ReadonlySet<string>;
  /** After each committed batch. */
  readonly onBatch?: (cursor: ReplayCursor, batch: ReplayBatch) => void | Promise<void>;
}

/** Drops whatever `schema` held and creates it afresh, empty. */
export async function createReplaySchema(db: Kysely<Database>, projection: Pick<ProjectionDefinition, 'createTables'>, schema: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await sql`DROP SCHEMA IF EXISTS ${sql.id(schema)} CASCADE`.execute(trx);
    await sql`CREATE SCHEMA ${sql.id(schema)}`.execute(trx);
    await sql`SELECT set_config('search_path', ${`${schema}, public`}, true)`.execute(trx);
    await projection.createTables(trx as unknown as Kysely<unknown>);
    await sql`
      CREATE TABLE ${sql.id(schema, REPLAY_FAILURES_TABLE)} (
        position_commit numeric(20, 0) NOT NULL,
        position_prepare numeric(20, 0) NOT NULL,
        event_id text NOT NULL,
        stream_id text NOT NULL,
        event_type text NOT NULL,
        user_id text,
        request_id text,
        correlation_id text,
        error text NOT NULL,
        failed_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (position_commit, position_prepare)
      )`.execute(trx);
  });
}

/** What operators skipped in this version (`projections skip`): a replay leaves them out as the live model did. */
export async function skippedPositions(db: Kysely<Database>, projection: Pick<ProjectionDefinition, 'name' | 'version'>): Promise<Set<string>> {
  const rows = await db
    .selectFrom('parked_events')
    .select(['position_commit', 'position_prepare'])
    .where('projection', '=', projection.name)
    .where('version', '=', projection.version)
    .where('status', '=', 'skipped')
    .execute();
  return new Set(rows.map((row) => `${row.position_commit}/${row.position_prepare}`));
}

export async function dropReplaySchema(db: Kysely<Database>, schema: string): Promise<void> {
  await sql`DROP SCHEMA IF EXISTS ${sql.id(schema)} CASCADE`.execute(db);
}

/**
 * Replays `$all` into `schema` from `from` to the head (or `upTo`), a batch per transaction: its
 * events, the ones that failed, and `save` commit together.
 */
export async function replayInto(
  db: Kysely<Database>,
  store: Pick<EventStore, 'readAll' | 'headPosition'>,
  projection: ProjectionDefinition,
  schema: string,
  from: ReplayCursor,
  options: ReplayOptions = {},
): Promise<ReplayCursor> {
  let cursor = from;
  const read = (after: GlobalPosition) => {
    const next = readReplayBatch(store, projection, after, options.batchSize ?? REPLAY_BATCH_SIZE, options.upTo);
    // Read ahead: its failure surfaces when it is awaited, not as an unhandled rejection meanwhile.
    next.catch(() => undefined);
    return next;
  };
  let next = read(cursor.position);
  for (;;) {
    const batch = await next;
    // The next read (the store's connections) runs while this batch is applied (the database's).
    if (!batch.atEnd) next = read(batch.to);
    cursor = await applyReplayBatch(db, projection, schema, cursor, batch, options);
    await options.onBatch?.(cursor, batch);
    if (batch.atEnd) return cursor;
  }
}

/** One batch into `schema`, in a transaction of its own. */
export function applyReplayBatch(
  db: Kysely<Database>,
  projection: ProjectionDefinition,
  schema: string,
  from: ReplayCursor,
  batch: ReplayBatch,
  options: Pick<ReplayOptions, 'save' | 'leaveOut'> = {},
): Promise<ReplayCursor> {
  return schemaTransaction(db, schema, (trx) => applyReplayBatchIn(trx, projection, schema, from, batch, options));
}

/** One batch into `schema` in the caller's transaction, whose search_path already puts `schema` first. */
export async function applyReplayBatchIn(
  trx: Transaction<Database>,
  projection: ProjectionDefinition,
  schema: string,
  from: ReplayCursor,
  batch: ReplayBatch,
  { save, leaveOut }: Pick<ReplayOptions, 'save' | 'leaveOut'> = {},
): Promise<ReplayCursor> {
  const events = leaveOut && leaveOut.size > 0 ? batch.events.filter((event) => !leaveOut.has(formatPosition(event.position))) : batch.events;
  const failures = await applyIsolatingFailures(trx, projection, events);
  for (const { event, error } of failures) {
    const text = (value: unknown) => (typeof value === 'string' ? printable(value) : null);
    await sql`
      INSERT INTO ${sql.id(schema, REPLAY_FAILURES_TABLE)} (position_commit, position_prepare, event_id, stream_id, event_type, user_id, request_id, correlation_id, error)
      VALUES (${event.position.commit.toString()}, ${event.position.prepare.toString()}, ${printable(event.id)}, ${printable(event.streamId)}, ${printable(event.type)},
              ${text(event.metadata?.userId)}, ${text(event.metadata?.requestId)}, ${text(event.metadata?.correlationId)}, ${error})
      ON CONFLICT (position_commit, position_prepare) DO UPDATE SET error = excluded.error, failed_at = excluded.failed_at`.execute(trx);
  }
  const cursor = { position: batch.to, applied: from.applied + events.length - failures.length };
  await save?.(trx, cursor);
  return cursor;
}
