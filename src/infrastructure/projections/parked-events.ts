import { type Kysely, type Selectable, sql, type Transaction } from 'kysely';
import type { GlobalPosition } from '../../core/events.js';
import type { Database, ParkedEventStatus, ParkedEventsTable } from '../database/schema.js';
import type { EventStore } from '../event-store/event-store.port.js';
import { CHECKPOINT_CHANNEL } from './checkpoint-watch.js';
import type { ProjectionDefinition } from './projection.js';
import { describeFailure, printable } from './projection-failure.js';
import { type EventFailure, projectionTransaction } from './projection-transaction.js';

/** Parked events (decision 0009): written by the runner, listed, retried and skipped by operators. */

export type ParkedEvent = Selectable<ParkedEventsTable>;
type VersionOf = Pick<ProjectionDefinition, 'name' | 'version'>;

export function positionOf(row: { position_commit: string; position_prepare: string }): GlobalPosition {
  return { commit: BigInt(row.position_commit), prepare: BigInt(row.position_prepare) };
}

/**
 * Records the event as parked, in the transaction that moves the checkpoint past it; the NOTIFY
 * (delivered on commit, before the checkpoint's own) tells every instance's read-your-writes.
 */
export async function parkEvent(trx: Transaction<Database>, projection: VersionOf, failure: EventFailure): Promise<void> {
  const { event } = failure;
  const { commit, prepare } = event.position;
  const text = (value: unknown) => (typeof value === 'string' ? printable(value) : null);
  await sql`
    INSERT INTO parked_events (projection, version, position_commit, position_prepare, event_id, stream_id, event_type, user_id, request_id,
                               correlation_id, error, attempts, first_failed_at, last_failed_at)
    VALUES (${projection.name}, ${projection.version}, ${commit.toString()}, ${prepare.toString()}, ${printable(event.id)}, ${printable(event.streamId)},
            ${printable(event.type)}, ${text(event.metadata?.userId)}, ${text(event.metadata?.requestId)}, ${text(event.metadata?.correlationId)},
            ${failure.error}, ${failure.attempts}, now(), now())
    ON CONFLICT (projection, version, position_commit, position_prepare) DO UPDATE
      SET error = excluded.error, attempts = parked_events.attempts + excluded.attempts, last_failed_at = excluded.last_failed_at,
          status = 'parked', resolved_at = NULL, resolved_by = NULL
    RETURNING pg_notify(${CHECKPOINT_CHANNEL}, ${`parked ${projection.name} ${projection.version} ${commit} ${prepare}`}) AS notified`.execute(trx);
}

/** Parked events, oldest position first within each projection version; `status` defaults to the open ones. */
export async function listParkedEvents(db: Kysely<Database>, filter: { projection?: string; status?: ParkedEventStatus | 'all' } = {}): Promise<ParkedEvent[]> {
  let query = db.selectFrom('parked_events').selectAll();
  const status = filter.status ?? 'parked';
  if (status !== 'all') query = query.where('status', '=', status);
  if (filter.projection) query = query.where('projection', '=', filter.projection);
  return query.orderBy('projection').orderBy('version').orderBy('position_commit').orderBy('position_prepare').execute();
}

export interface RetryOutcome {
  readonly parked: ParkedEvent;
  /** `retried`: applied and marked; `failed`: still parked (attempts + 1); `gone`: resolved meanwhile by someone else. */
  readonly result: 'retried' | 'failed' | 'gone';
  readonly error?: string;
}

/**
 * Re-applies this release's parked events of `projection` (all, or the one at `position`) with its
 * current code, each in its own transaction holding the version's checkpoint row (decision 0032).
 */
export async function retryParkedEvents(
  db: Kysely<Database>,
  store: Pick<EventStore, 'readStream'>,
  projection: ProjectionDefinition,
  options: { position?: GlobalPosition; by: string },
): Promise<RetryOutcome[]> {
  const parked = (await listParkedEvents(db, { projection: projection.name })).filter(
    (row) => row.version === projection.version && (!options.position || samePosition(row, options.position)),
  );
  const outcomes: RetryOutcome[] = [];
  for (const row of parked) {
    try {
      const event = (await store.readStream(row.stream_id)).find((candidate) => candidate.id === row.event_id);
      if (!event) throw new Error(`event ${row.event_id} is no longer in stream ${row.stream_id}`);
      const applied = await projectionTransaction(db, projection, async (trx) => {
        const open = await whereParked(trx.selectFrom('parked_events').select('status'), row).where('status', '=', 'parked').forUpdate().executeTakeFirst();
        if (!open) return false;
        if (projection.eventTypes.includes(event.type)) await projection.apply(trx, [event]);
        await whereParked(trx.updateTable('parked_events').set({ status: 'retried', resolved_at: sql<Date>`now()`, resolved_by: options.by }), row).execute();
        await trx
          .updateTable('projection_versions')
          .set((eb) => ({ events_applied: eb('events_applied', '+', 1), updated_at: sql<Date>`now()` }))
          .where('name', '=', projection.name)
          .where('version', '=', projection.version)
          .execute();
        return true;
      });
      outcomes.push({ parked: row, result: applied ? 'retried' : 'gone' });
    } catch (error) {
      const message = describeFailure(error);
      await whereParked(
        db.updateTable('parked_events').set((eb) => ({ attempts: eb('attempts', '+', 1), last_failed_at: sql<Date>`now()`, error: message })),
        row,
      )
        .where('status', '=', 'parked')
        .execute();
      outcomes.push({ parked: row, result: 'failed', error: message });
    }
  }
  return outcomes;
}

export type SkipOutcome = { readonly result: 'skipped'; readonly parked: ParkedEvent } | { readonly result: 'not-found' } | { readonly result: 'already'; readonly parked: ParkedEvent };

/** Marks the parked event at `position` skipped: the read model stays without it, on the record with who and when. */
export async function skipParkedEvent(db: Kysely<Database>, projection: VersionOf, position: GlobalPosition, by: string): Promise<SkipOutcome> {
  const key = { projection: projection.name, version: projection.version, position_commit: position.commit.toString(), position_prepare: position.prepare.toString() };
  const skipped = await whereParked(db.updateTable('parked_events').set({ status: 'skipped', resolved_at: sql<Date>`now()`, resolved_by: by }), key)
    .where('status', '=', 'parked')
    .returningAll()
    .executeTakeFirst();
  if (skipped) return { result: 'skipped', parked: skipped };
  const existing = await whereParked(db.selectFrom('parked_events').selectAll(), key).executeTakeFirst();
  return existing ? { result: 'already', parked: existing } : { result: 'not-found' };
}

type ParkedKey = Pick<ParkedEvent, 'projection' | 'version' | 'position_commit' | 'position_prepare'>;

interface Filterable<Q> {
  where(column: 'projection' | 'version' | 'position_commit' | 'position_prepare', operator: '=', value: string | number): Q;
}

function whereParked<Q extends Filterable<Q>>(query: Q, key: ParkedKey): Q {
  return query
    .where('projection', '=', key.projection)
    .where('version', '=', key.version)
    .where('position_commit', '=', key.position_commit)
    .where('position_prepare', '=', key.position_prepare);
}

function samePosition(row: ParkedKey, position: GlobalPosition): boolean {
  return BigInt(row.position_commit) === position.commit && BigInt(row.position_prepare) === position.prepare;
}
