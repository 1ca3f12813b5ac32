import { type Kysely, sql, type Transaction } from 'kysely';
import { comparePositions, type GlobalPosition, type RecordedEvent } from '../../core/events.js';
import type { Database } from '../database/schema.js';
import type { EventStore } from '../event-store/event-store.port.js';
import type { ProjectionDefinition } from './projection.js';

/**
 * Bulk replay of `$all` into a projection's tables (decision 0019): what a new version's first
 * build, `projections rebuild` and `audit verify` share. Large reads of the projection's own event
 * types only; the cursor still moves past everything else.
 */

/** Events per read while replaying: large enough that a round trip and a commit are small beside the work. */
export const REPLAY_BATCH_SIZE = 5_000;

export interface ReplayBatch {
  /** The projection's events after the cursor, oldest first. */
  readonly events: readonly RecordedEvent[];
  /** Where the cursor moves once they are applied: past the events of other types too. */
  readonly to: GlobalPosition;
  /** Every event of the projection's types up to `to` is in this batch: the replay has reached the head (or `upTo`). */
  readonly atEnd: boolean;
  /** The head of the feed, read just before the events. */
  readonly head: GlobalPosition;
}

type Replayed = Pick<ProjectionDefinition, 'eventTypes'>;

/**
 * The next batch after `after`. The head is read before the events: whatever was visible then is
 * in a read that comes back short, so a short read may move the cursor to the head even when the
 * head's own event is of another type. With `upTo`, nothing after it is returned, and the end is `upTo`.
 */
export async function readReplayBatch(
  store: Pick<EventStore, 'readAll' | 'headPosition'>,
  projection: Replayed,
  after: GlobalPosition,
  maxCount: number,
  upTo?: GlobalPosition,
): Promise<ReplayBatch> {
  const head = await store.headPosition();
  const read = await store.readAll({ after, maxCount, eventTypes: projection.eventTypes });
  const full = read.length === maxCount;
  const newest = [after, head, ...(read.length > 0 ? [read[read.length - 1].position] : [])].reduce(later);
  if (!upTo) return full ? { events: read, to: read[read.length - 1].position, atEnd: false, head } : { events: read, to: newest, atEnd: true, head };
  const events = read.filter((event) => comparePositions(event.position, upTo) <= 0);
  if (events.length < read.length || (!full && comparePositions(head, upTo) >= 0)) return { events, to: later(after, upTo), atEnd: true, head };
  return { events, to: full ? read[read.length - 1].position : newest, atEnd: false, head };
}

/** A transaction whose unqualified names resolve to `schema` first; it commits without waiting for the WAL flush (a replay is redone from events). */
export function schemaTransaction<T>(db: Kysely<Database>, schema: string, work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  return db.transaction().execute(async (trx) => {
    await sql`SELECT set_config('search_path', ${schema} || ', ' || current_setting('search_path'), true), set_config('synchronous_commit', 'off', true)`.execute(trx);
    return work(trx);
  });
}

/** The ordinary tables of a schema, by name. */
export async function schemaTables(db: Kysely<Database>, schema: string): Promise<string[]> {
  const result = await sql<{ table: string }>`
    SELECT c.relname AS table FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = ${schema} AND c.relkind IN ('r', 'p') ORDER BY c.relname`.execute(db);
  return result.rows.map((row) => row.table);
}

export async function schemaExists(db: Kysely<Database>, schema: string): Promise<boolean> {
  const result = await sql<{ found: boolean }>`SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = ${schema}) AS found`.execute(db);
  return result.rows[0].found;
}

/** Fresh planner statistics after a bulk load: without them the first plans on the new tables guess from an empty table. */
export async function analyzeSchema(db: Kysely<Database>, schema: string): Promise<void> {
  for (const table of await schemaTables(db, schema)) await sql`ANALYZE ${sql.id(schema, table)}`.execute(db);
}

function later(a: GlobalPosition, b: GlobalPosition): GlobalPosition {
  return comparePositions(a, b) >= 0 ? a : b;
}
