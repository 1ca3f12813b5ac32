import { type Kysely, sql, type Transaction } from 'kysely';
import type { GlobalPosition, RecordedEvent } from '../../core/events.js';
import type { Database } from '../database/schema.js';
import { PROJECTION_WRITER_APPLICATION } from '../event-store/feed-horizon.js';
import { type ProjectionDefinition, projectionSchema } from './projection.js';
import { describeFailure, isTransientError } from './projection-failure.js';

type VersionOf = Pick<ProjectionDefinition, 'name' | 'version'>;

/** Longer than any pause between a projection transaction's statements; as long as the daemon lease's expiry. */
const HELD_ROW_IDLE_LIMIT_MS = 10_000;

/** A newer version of the same projection has caught up: this release stops projecting its own for good. */
export class ProjectionSupersededError extends Error {
  constructor(
    readonly projection: string,
    readonly version: number,
  ) {
    super(`projection ${projection} version ${version} is superseded by a newer version; this release stops projecting it`);
  }
}

export interface StoredCheckpoint {
  readonly position: GlobalPosition;
  readonly caughtUp: boolean;
}

/**
 * The one exclusion of the read side (decision 0032): every transaction that writes a projection
 * version's tables — the daemon's batches, a first build, an operator's retry, a rebuild's switch,
 * a verification's catch-up — first locks that version's checkpoint row, and works from the
 * checkpoint it reads under the lock. Two writers of one version therefore take turns, and each
 * sees where the other left it: nothing is applied twice, whoever believes they lead.
 *
 * The local search_path puts the version's schema (or `schema`, a rebuild's shadow) first; the
 * transaction commits without waiting for the WAL flush (decision 0014): a read model is rebuilt
 * from events, and its checkpoint commits with its rows. It appends no event, and says so by its
 * application name: the feed's horizon does not wait for it (whichever pool it runs on). A writer
 * that stops answering with the row locked (a hung process: its connection stays open) loses its
 * session after HELD_ROW_IDLE_LIMIT_MS idle, so the instance that took the lease over can go on.
 */
export function projectionTransaction<T>(
  db: Kysely<Database>,
  projection: VersionOf,
  work: (trx: Transaction<Database>, checkpoint: StoredCheckpoint) => Promise<T>,
  options: { readonly schema?: string } = {},
): Promise<T> {
  const { name, version } = projection;
  return db.transaction().execute(async (trx) => {
    const locked = await sql<{ position_commit: string; position_prepare: string; caught_up_at: Date | null; superseded_at: Date | null }>`
      SELECT position_commit, position_prepare, caught_up_at, superseded_at,
             set_config('search_path', ${options.schema ?? projectionSchema(projection)} || ', ' || current_setting('search_path'), true),
             set_config('synchronous_commit', 'off', true),
             set_config('application_name', ${PROJECTION_WRITER_APPLICATION}, true),
             set_config('idle_in_transaction_session_timeout', ${String(HELD_ROW_IDLE_LIMIT_MS)}, true)
        FROM projection_versions WHERE name = ${name} AND version = ${version} FOR UPDATE`.execute(trx);
    const row = locked.rows[0];
    if (!row) throw new Error(`Projection ${name} version ${version} has no checkpoint row: run \`ledgerline migrate\` first`);
    if (row.superseded_at) throw new ProjectionSupersededError(name, version);
    return work(trx, { position: { commit: BigInt(row.position_commit), prepare: BigInt(row.position_prepare) }, caughtUp: row.caught_up_at !== null });
  });
}

/**
 * Moves the locked checkpoint to `to`, counting `applied` events of the projection's types. The
 * first time a version reaches the head of the feed it is live, and every older version of it is
 * superseded.
 */
export async function moveCheckpoint(trx: Transaction<Database>, projection: VersionOf, to: GlobalPosition, applied: number, options: { readonly caughtUpNow?: boolean } = {}): Promise<void> {
  const { name, version } = projection;
  await sql`
    UPDATE projection_versions
       SET position_commit = ${to.commit.toString()}, position_prepare = ${to.prepare.toString()},
           events_applied = events_applied + ${applied}, updated_at = now()
           ${options.caughtUpNow ? sql`, caught_up_at = coalesce(caught_up_at, now())` : sql``}
     WHERE name = ${name} AND version = ${version}`.execute(trx);
  if (options.caughtUpNow) await sql`UPDATE projection_versions SET superseded_at = now() WHERE name = ${name} AND version < ${version} AND superseded_at IS NULL`.execute(trx);
}

/**
 * Checkpoints that only passed events changing nothing in their read models, stored together in
 * one statement; a checkpoint is only ever moved forward, so one that another transaction moved
 * further meanwhile (a rebuild's switch) stays where it is.
 */
export async function storePassedCheckpoints(db: Kysely<Database>, moves: readonly { projection: VersionOf; to: GlobalPosition; applied: number }[]): Promise<void> {
  if (moves.length === 0) return;
  const rows = moves.map(({ projection, to, applied }) => ({ name: projection.name, version: projection.version, c: to.commit.toString(), p: to.prepare.toString(), applied }));
  await sql`
    UPDATE projection_versions v
       SET position_commit = n.c, position_prepare = n.p, events_applied = v.events_applied + n.applied, updated_at = now()
      FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS n(name text, version int, c numeric, p numeric, applied bigint)
     WHERE v.name = n.name AND v.version = n.version AND v.superseded_at IS NULL
       AND (v.position_commit, v.position_prepare) < (n.c, n.p)`.execute(db);
}

export interface EventFailure {
  readonly event: RecordedEvent;
  /** What an operator reads (describeFailure): the message and SQLSTATE. */
  readonly error: string;
  readonly attempts: number;
}

/** Tries of one event, each in a savepoint of its own, before it is given up on (parked). */
export const ATTEMPTS_PER_EVENT = 3;

/** An error about the events, not the database or the version: worth isolating and, in the end, parking. */
export function isEventFailure(error: unknown): boolean {
  return !(error instanceof ProjectionSupersededError || isTransientError(error));
}

/**
 * The one apply path, and its parking rule (decision 0009): live batches, first builds, rebuilds
 * and verifications all come through here. The batch is applied in one call; if the projector
 * cannot apply it, one event at a time, each tried `attempts` times in a savepoint of its own, so
 * the good events still apply and only those that fail every try are returned, their changes
 * undone, for the caller to record. A failure that is not the event's (a lost connection, a
 * timeout) ends the whole transaction: it is retried later, never parked.
 */
export async function applyIsolatingFailures(
  trx: Transaction<Database>,
  projection: Pick<ProjectionDefinition, 'apply'>,
  events: readonly RecordedEvent[],
  attempts = ATTEMPTS_PER_EVENT,
): Promise<EventFailure[]> {
  if (events.length === 0) return [];
  if (await inSavepoint(trx, 'apply_batch', () => projection.apply(trx, events))) return [];
  const failures: EventFailure[] = [];
  for (const event of events) {
    let lastError: unknown = null;
    for (let attempt = 1; attempt <= attempts; attempt += 1) {
      lastError = null;
      const applied = await inSavepoint(trx, 'apply_event', () => projection.apply(trx, [event]), (error) => (lastError = error));
      if (applied) break;
    }
    if (lastError !== null) failures.push({ event, error: describeFailure(lastError), attempts });
  }
  return failures;
}

/** Runs `work` in a savepoint; an event failure rolls it back and answers false, anything else is thrown. */
async function inSavepoint(trx: Transaction<Database>, name: string, work: () => Promise<void>, onFailure?: (error: unknown) => void): Promise<boolean> {
  await sql`SAVEPOINT ${sql.raw(name)}`.execute(trx);
  try {
    await work();
    await sql`RELEASE SAVEPOINT ${sql.raw(name)}`.execute(trx);
    return true;
  } catch (error) {
    if (!isEventFailure(error)) throw error;
    await sql`ROLLBACK TO SAVEPOINT ${sql.raw(name)}`.execute(trx);
    onFailure?.(error);
    return false;
  }
}
