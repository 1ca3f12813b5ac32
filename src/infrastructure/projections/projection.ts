import type { Kysely, Transaction } from 'kysely';
import type { DomainEvent, RecordedEvent } from '../../core/events.js';
import type { Database } from '../database/schema.js';

/**
 * A read model: its tables, how events change them, and a version. Each version's tables live in
 * a schema of their own (`projectionSchema`), so bumping the version builds the new one beside
 * the old from `$all` while a release that still runs the old version keeps serving it.
 */
export interface ProjectionDefinition {
  readonly name: string;
  readonly version: number;
  /**
   * `inline`: on the PostgreSQL store, applied in the transaction of every append (the answer to a
   * write is built from it), and by the daemon only to events appended otherwise. Its `apply` must
   * not read what its own statements wrote (they are sent without waiting for their results).
   * `async` (the default): applied by the daemon, after the append.
   */
  readonly mode?: 'inline' | 'async';
  /**
   * A reaction is a checkpointed consumer whose "rows" are side effects recorded for later (jobs in
   * the outbox): it starts at the head of the feed when created, never replaying the past, and is
   * neither rebuilt nor verified.
   */
  readonly kind?: 'read-model' | 'reaction';
  readonly tables: readonly string[];
  /** The event types it reads; a batch with none of them only moves the checkpoint. */
  readonly eventTypes: readonly string[];
  /**
   * Whether an event of `eventTypes` can change its rows (default: every one can). A write waits
   * for the read models its events change and no others (read-your-writes): one that leaves a
   * read model as it was has nothing there to wait for.
   */
  changedBy?(event: DomainEvent): boolean;
  /** Creates the tables with unqualified names: they land in the version's schema. */
  createTables(db: Kysely<unknown>): Promise<void>;
  /** Applies a batch (only `eventTypes`, in order) in the runner's transaction; the checkpoint moves in the same transaction. */
  apply(trx: Transaction<Database>, events: readonly RecordedEvent[]): Promise<void>;
  /**
   * Columns that are not a function of the events (a sequence, a clock): `audit verify` leaves them
   * out of its checksums, by table. Better none: a column a replay cannot reproduce is one an
   * auditor cannot check either.
   */
  readonly checksumExcludes?: Readonly<Record<string, readonly string[]>>;
}

/** Whether `event` can change `projection`'s rows: one of its types, and not one it declares it ignores. */
export function projectionChangedBy(projection: Pick<ProjectionDefinition, 'eventTypes' | 'changedBy'>, event: DomainEvent): boolean {
  return projection.eventTypes.includes(event.type) && (projection.changedBy?.(event) ?? true);
}

/** How an event names the projection versions it was applied to inline. */
export function inlineKey(projection: Pick<ProjectionDefinition, 'name' | 'version'>): string {
  return `${projection.name}@${projection.version}`;
}

/**
 * An inline write holds its read models' advisory locks shared until it commits; a rebuild's switch
 * takes its version's alone before its last catch-up, so no inline write lands in a schema being replaced.
 * `$1`: the inline keys.
 */
export const SHARE_INLINE_LOCKS = {
  name: 'ledgerline-inline-locks',
  text: "SELECT count(pg_advisory_xact_lock_shared(hashtextextended('ledgerline-inline:' || k, 0))) FROM unnest($1::text[]) AS k",
};
export const INLINE_LOCK_KEY = (projection: Pick<ProjectionDefinition, 'name' | 'version'>) => `ledgerline-inline:${inlineKey(projection)}`;

/** Whether the append's own transaction already applied `event` to this version of `projection`. */
export function appliedInlineTo(event: RecordedEvent, projection: Pick<ProjectionDefinition, 'name' | 'version'>): boolean {
  return event.appliedInline !== undefined && event.appliedInline.includes(inlineKey(projection));
}

/** The PostgreSQL schema holding one version of a projection's tables. */
export function projectionSchema(projection: Pick<ProjectionDefinition, 'name' | 'version'>): string {
  return `projection_${projection.name.replace(/[^a-z0-9]+/g, '_')}_v${projection.version}`;
}

/**
 * What a release's connections resolve unqualified table names through: its own version of every
 * read model, then `public` (events, checkpoints, identity).
 */
export function readModelSearchPath(projections: readonly ProjectionDefinition[]): string[] {
  return [...projections.filter((projection) => projection.kind !== 'reaction').map(projectionSchema), 'public'];
}
