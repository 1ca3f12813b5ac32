import type pg from 'pg';
import {
  comparePositions,
  type EventMetadata,
  type ExpectedRevision,
  type GlobalPosition,
  type RecordedEvent,
  START_POSITION,
  WrongExpectedRevisionError,
} from '../../core/events.js';
import type { AppendGuard, AppendOptions, AppendResult, EventStore, EventSubscription, NewEvent, NewStream, NewStreamsResult, ReadAllOptions, ReadStreamOptions, SubscribeOptions } from './event-store.port.js';
import { appendToNewStreamsOneByOne } from './new-streams.js';
export { appendStatement } from './postgres-append-statements.js';
import { GENESIS_HASH, stampIds } from './event-chain.js';
import { StreamHeads } from './stream-heads.js';
import { appendStatement, inlineAppendStatement, newStreamEvents, newStreamsStatement } from './postgres-append-statements.js';
import { SharedFeedPages } from './shared-feed-pages.js';
import { connectDatabase } from '../database/database.js';
import { AppendSignal, type AppendSignalOptions } from './append-signal.js';
import { pollingSubscription } from './polling-subscription.js';
import { FeedHorizon, type FeedHorizonOptions, HORIZON, VISIBLE } from './feed-horizon.js';
import { InlineProjections } from './inline-projections.js';
import { PipelinedTransaction } from './pipelined-transaction.js';
import { inlineKey, type ProjectionDefinition, readModelSearchPath, SHARE_INLINE_LOCKS } from '../projections/projection.js';
import { isTransientError } from '../projections/projection-failure.js';

export interface EventRow {
  event_id: string;
  stream_id: string;
  stream_revision: string | number;
  commit_position: string;
  global_position: string | number;
  type: string;
  data: unknown;
  metadata: EventMetadata;
  applied_inline: string[] | null;
}

/** A read's rows come with the snapshot it was read under (on the first row, or a row of nulls when none). */
type SnapshotRow<Row> = { [Column in keyof Row]: Row[Column] | null } & { snapshot: string | null };

export interface PostgresEventStoreOptions extends FeedHorizonOptions {
  readonly listen?: AppendSignalOptions;
  /** Read models projected in the transaction of every append, once their version is live (decision 0033). */
  readonly inline?: readonly ProjectionDefinition[];
}

export interface OwnPoolReadModels {
  /** This release's read models: what the unqualified table names of guards and inline writes resolve to. */
  readonly readModels?: readonly ProjectionDefinition[];
}

export interface OwnPoolOptions extends PostgresEventStoreOptions, OwnPoolReadModels {
  /** `statement_timeout` of the store's own connections, which bounds every append (default 5 s). */
  readonly statementTimeoutMs?: number;
  readonly max?: number;
}

const APPEND_CHANNEL = 'ledgerline_events';
/** Full `$all` pages kept for the process's other readers (~1-2 MB each at 500 events). */
const FEED_PAGES_KEPT = 16;
export const EVENT_STORE_STATEMENT_TIMEOUT_MS = 5_000;

/**
 * The xid8 is read as text under another name: aliased `transaction_id`, an `ORDER BY
 * transaction_id` would sort the text ("100" before "99") instead of the xid.
 */
export const COLUMNS = 'event_id, stream_id, stream_revision, transaction_id::text AS commit_position, global_position, type, data, metadata, applied_inline';

/**
 * The event store on PostgreSQL (decision 0001). `$all` readers wait behind a running transaction
 * for at most twice the `statement_timeout` of the store's connections (decision 0008): 10 s on
 * the connections of its own that `open` gives it (5 s timeout), 60 s on a pool with the default 30 s.
 */
export class PostgresEventStore implements EventStore {
  readonly transactionalGuards = true;
  private readonly appendSignal: AppendSignal;
  private readonly horizon: FeedHorizon;
  readonly inline: InlineProjections;
  private readonly feedPages = new SharedFeedPages(FEED_PAGES_KEPT);
  private readonly heads = new StreamHeads();
  private notifying = false;
  private notifyAgain = false;

  /** A store on connections of its own, whose short `statement_timeout` bounds every append; `close()` ends them. */
  static open(url: string, options: OwnPoolOptions = {}): PostgresEventStore {
    const connection = connectDatabase(url, {
      max: options.max ?? 10,
      applicationName: 'ledgerline-events',
      statementTimeoutMs: options.statementTimeoutMs ?? EVENT_STORE_STATEMENT_TIMEOUT_MS,
      // Guards and inline projections name tables unqualified: this release's version of each.
      searchPath: readModelSearchPath(options.readModels ?? options.inline ?? []),
      pipeline: true,
    });
    return new PostgresEventStore(connection.pool, options, () => connection.close());
  }

  constructor(
    private readonly pool: pg.Pool,
    options: PostgresEventStoreOptions = {},
    private readonly closePool: () => Promise<void> = async () => undefined,
  ) {
    this.appendSignal = new AppendSignal(pool, APPEND_CHANNEL, undefined, options.listen);
    this.horizon = new FeedHorizon(pool, options);
    this.inline = new InlineProjections(pool, options.inline ?? []);
  }

  /** Looks up which inline read models are live; until then every append leaves them to the daemon. */
  async start(): Promise<void> {
    await this.inline.start();
  }

  async appendToStream(streamId: string, events: readonly NewEvent[], expectedRevision: ExpectedRevision, options: AppendOptions = {}): Promise<AppendResult> {
    if (events.length === 0) throw new Error('appendToStream needs at least one event');
    // Each event's hash covers its revision (decision 0044): 'any' settles the revision first.
    if (expectedRevision === 'any') return this.appendAtAnyRevision(streamId, events, options);
    const stamped = stampIds(events);
    const inline = this.inline.for(stamped);
    const guards = options.guards ?? [];
    // Only a head that was remembered (`known`) is found stale; the second attempt reads it.
    for (let attempt = 0; ; attempt += 1) {
      const head = await this.headOf(streamId, expectedRevision, attempt > 0);
      try {
        if (inline.length === 0 && guards.length === 0) return await this.appendAlone(streamId, stamped, expectedRevision, head);
        try {
          return await this.appendInTransaction(streamId, stamped, expectedRevision, head, inline, guards);
        } catch (error) {
          // The stream's previous event is not projected yet where this one would go inline (another
          // release wrote it, or the version just went live), or an inline read model cannot apply the
          // events: they are stored all the same and left to the daemon, which parks what it cannot apply.
          if (error instanceof InlineProjectionRefused) return await this.appendInTransaction(streamId, stamped, expectedRevision, head, [], guards);
          throw error;
        }
      } catch (error) {
        // The head this process remembered is not the stream's (given its hash since, by `ledgerline audit chain`): read it, once.
        if (!(error instanceof StaleStreamHead) || attempt > 0) throw error;
        this.heads.delete(streamId);
      }
    }
  }

  /**
   * The hash of the stream's event at the expected revision: the genesis hash for a new stream, else
   * what this process knows of the stream's head or, when it does not (or `read`), what is stored
   * (null when the event has no hash yet, or no such event exists: the append is then refused).
   */
  private async headOf(streamId: string, expected: bigint | 'no_stream', read: boolean): Promise<StreamHead> {
    if (expected === 'no_stream') return { hash: GENESIS_HASH, known: true };
    const known = read ? undefined : this.heads.at(streamId, expected);
    if (known !== undefined) return { hash: known, known: true };
    const { rows } = await this.pool.query<{ hash: Buffer | null }>({
      name: 'ledgerline-stream-hash',
      text: 'SELECT hash FROM events WHERE stream_id = $1 AND stream_revision = $2::bigint',
      values: [streamId, expected.toString()],
    });
    return { hash: rows[0]?.hash ?? null, known: false };
  }

  /** At the stream's current revision, read again should another append take it first. */
  private async appendAtAnyRevision(streamId: string, events: readonly NewEvent[], options: AppendOptions): Promise<AppendResult> {
    for (;;) {
      try {
        return await this.appendToStream(streamId, events, await this.currentRevision(streamId), options);
      } catch (error) {
        if (!(error instanceof WrongExpectedRevisionError)) throw error;
      }
    }
  }

  /** One statement, no explicit transaction. */
  private async appendAlone(streamId: string, events: readonly (NewEvent & { id: string })[], expectedRevision: bigint | 'no_stream', head: StreamHead): Promise<AppendResult> {
    const { statement, lastHash } = appendStatement(streamId, events, expectedRevision, head.hash);
    let rows: AppendedRow[];
    try {
      rows = (await this.pool.query(statement)).rows;
    } catch (error) {
      if (isUniqueViolation(error, 'events_stream_id_stream_revision_key')) throw await this.wrongRevision(streamId, expectedRevision);
      throw error;
    }
    if (rows.length === 0) throw head.known ? new StaleStreamHead() : await this.wrongRevision(streamId, expectedRevision);
    this.announceAppend();
    return this.appended(streamId, rows, [], lastHash);
  }

  /**
   * One transaction, one round trip (pipelined, decision 0033): the guards, the append — which
   * refuses a stale expected revision with an error, ending the transaction — and the inline read
   * models' writes for the events, committed together.
   */
  private async appendInTransaction(
    streamId: string,
    events: readonly (NewEvent & { id: string })[],
    expected: bigint | 'no_stream',
    head: StreamHead,
    inline: readonly ProjectionDefinition[],
    guards: readonly AppendGuard[],
  ): Promise<AppendResult> {
    const keys = inline.map(inlineKey);
    const { statement, lastHash } = inlineAppendStatement(streamId, events, expected, head.hash, keys);
    const outcome = await this.inTransaction(async (transaction) => {
      if (keys.length > 0) transaction.send({ ...SHARE_INLINE_LOCKS, values: [keys] });
      const checks = guards.map((guard) => transaction.send({ text: `SELECT ledgerline_require(${guard.condition.sql})`, values: guard.condition.parameters }));
      const appended = transaction.send(statement);
      const recorded = InlineProjections.recorded(streamId, events, expected === 'no_stream' ? 0n : expected + 1n);
      for (const projection of inline) await projection.apply(transaction.db, recorded.filter((event) => projection.eventTypes.includes(event.type)));
      return { checks, appended };
    }).catch(async (error: unknown) => {
      throw await this.appendFailure(error, streamId, expected, head, guards, inline.length > 0);
    });
    this.announceAppend();
    return this.appended(streamId, (await outcome.appended).rows as AppendedRow[], keys, lastHash);
  }

  /** The append's result; the stream's head is remembered for its next append. */
  private appended(streamId: string, rows: readonly AppendedRow[], appliedInline: readonly string[], lastHash: Buffer | null): AppendResult {
    const result = appendResultOf(rows, appliedInline);
    this.heads.remember(streamId, result.nextExpectedRevision, lastHash);
    return result;
  }

  private async wrongRevision(streamId: string, expected: bigint | 'no_stream'): Promise<WrongExpectedRevisionError> {
    this.heads.delete(streamId);
    return new WrongExpectedRevisionError(streamId, expected, await this.currentRevision(streamId));
  }

  /**
   * What a failed append in a transaction means: a stale revision, a guard that did not hold, an
   * inline read model that refused (its events not projected yet, or not applicable), or the error itself.
   */
  private async appendFailure(error: unknown, streamId: string, expected: bigint | 'no_stream', head: StreamHead, guards: readonly AppendGuard[], inline: boolean): Promise<unknown> {
    const failed = error as GuardFailure;
    if (isUniqueViolation(error, 'events_stream_id_stream_revision_key') || failed.code === 'LL409') return this.wrongRevision(streamId, expected);
    if (failed.code === 'LL428') return head.known ? new StaleStreamHead() : this.wrongRevision(streamId, expected);
    if (failed.code === 'LL412' && failed.guard !== undefined) return guards[failed.guard].refusal();
    if (inline && (failed.code === 'LL425' || !isTransientError(error))) return new InlineProjectionRefused(error);
    return error;
  }

  /**
   * `work` sends its statements on a pipelined transaction; then it commits. A failure is thrown
   * with, for a guard's, the index of the guard that did not hold.
   */
  private async inTransaction<T extends { checks: readonly Promise<unknown>[] }>(work: (transaction: PipelinedTransaction) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    let broken: Error | undefined;
    try {
      const transaction = new PipelinedTransaction(client);
      let outcome: T;
      try {
        outcome = await work(transaction);
      } catch (error) {
        return await transaction.rollback(error);
      }
      try {
        await transaction.commit();
      } catch (error) {
        const code = (error as { code?: string }).code;
        if (code === 'LL412') {
          for (const [index, check] of outcome.checks.entries()) {
            if (await check.then(() => false, () => true)) throw Object.assign(error as object, { guard: index });
          }
        }
        throw error;
      }
      return outcome;
    } catch (error) {
      if (isConnectionFailure(error)) broken = error as Error;
      throw error;
    } finally {
      client.release(broken);
    }
  }

  /**
   * One statement for every stream; should another writer create one of them meanwhile, one stream
   * at a time. With inline read models live, the statement and their writes for the streams it
   * created share a transaction (two round trips: which streams were created must be known first).
   */
  async appendToNewStreams(streams: readonly NewStream[], useInline = true): Promise<NewStreamsResult> {
    const events = newStreamEvents(streams);
    if (events.length === 0) return { existing: [], position: null, appliedInline: [] };
    const inline = useInline ? this.inline.for(events.map(({ event }) => event)) : [];
    const keys = inline.map(inlineKey);
    const statement = newStreamsStatement(events, keys);
    let rows: NewStreamRow[];
    try {
      if (inline.length === 0) {
        rows = (await this.pool.query<NewStreamRow>(statement)).rows;
      } else {
        rows = (
          await this.inTransaction(async (transaction) => {
            transaction.send({ ...SHARE_INLINE_LOCKS, values: [keys] });
            const created = (await transaction.send(statement)).rows as NewStreamRow[];
            const createdIds = new Set(created.map((row) => row.stream_id));
            const recorded = events
              .filter(({ streamId }) => createdIds.has(streamId))
              .flatMap(({ streamId, revision, event }) => InlineProjections.recorded(streamId, [event], BigInt(revision)));
            for (const projection of inline) await projection.apply(transaction.db, recorded.filter((event) => projection.eventTypes.includes(event.type)));
            return { checks: [], created };
          })
        ).created;
      }
    } catch (error) {
      if (isUniqueViolation(error, 'events_stream_id_stream_revision_key')) return appendToNewStreamsOneByOne(this, streams);
      // An inline read model cannot take the events: stored all the same, left to the daemon.
      if (inline.length > 0 && !isTransientError(error)) return this.appendToNewStreams(streams, false);
      throw error;
    }
    const created = new Set(rows.map((row) => row.stream_id));
    const existing = [...new Set(streams.filter(({ streamId, events: first }) => first.length > 0 && !created.has(streamId)).map(({ streamId }) => streamId))];
    if (rows.length === 0) return { existing, position: null, appliedInline: keys };
    this.announceAppend();
    const last = rows.reduce((latest, row) => (BigInt(row.global_position) > BigInt(latest.global_position) ? row : latest));
    return { existing, position: { commit: BigInt(last.commit_position), prepare: BigInt(last.global_position) }, appliedInline: keys };
  }

  /** The stream's head is remembered: a command decided on what it read appends without reading its hash. */
  async readStream(streamId: string, { fromRevision = 0n }: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const result = await this.pool.query<EventRow & { hash: Buffer | null }>({
      name: 'ledgerline-read-stream',
      text: `SELECT ${COLUMNS}, hash FROM events WHERE stream_id = $1 AND stream_revision >= $2::bigint ORDER BY stream_revision`,
      values: [streamId, fromRevision.toString()],
    });
    const last = result.rows.at(-1);
    if (last) this.heads.remember(streamId, BigInt(last.stream_revision), last.hash);
    return result.rows.map(toRecordedEvent);
  }

  /** One statement: each stream's rows found by the (stream_id, stream_revision) key, only the first of the type returned. */
  async firstEventOfType(streamIds: readonly string[], type: string): Promise<Map<string, RecordedEvent>> {
    if (streamIds.length === 0) return new Map();
    const result = await this.pool.query<EventRow>({
      name: 'ledgerline-first-of-type',
      text: `SELECT DISTINCT ON (stream_id) ${COLUMNS} FROM events WHERE stream_id = ANY($1::text[]) AND type = $2 ORDER BY stream_id, stream_revision`,
      values: [[...new Set(streamIds)], type],
    });
    return new Map(result.rows.map((row) => [row.stream_id, toRecordedEvent(row)]));
  }

  async readStreams(streamIds: readonly string[]): Promise<Map<string, RecordedEvent[]>> {
    const streams = new Map<string, RecordedEvent[]>(streamIds.map((streamId) => [streamId, []]));
    if (streamIds.length === 0) return streams;
    const result = await this.pool.query<EventRow>({
      name: 'ledgerline-read-streams',
      text: `SELECT ${COLUMNS} FROM events WHERE stream_id = ANY($1::text[]) ORDER BY stream_id, stream_revision`,
      values: [[...new Set(streamIds)]],
    });
    for (const row of result.rows) streams.get(row.stream_id)?.push(toRecordedEvent(row));
    return streams;
  }

  readAll({ after = START_POSITION, maxCount, eventTypes }: ReadAllOptions): Promise<RecordedEvent[]> {
    const key = `${after.commit}/${after.prepare}/${maxCount}/${eventTypes?.join(',') ?? ''}`;
    return this.feedPages.read(key, maxCount, () => this.readAllFromDatabase(after, maxCount, eventTypes));
  }

  private async readAllFromDatabase(after: GlobalPosition, maxCount: number, eventTypes: readonly string[] | undefined): Promise<RecordedEvent[]> {
    const typeFilter = eventTypes ? 'AND type = ANY($5::text[])' : '';
    const values: unknown[] = [await this.horizon.oldTransactions(), after.commit.toString(), after.prepare.toString(), maxCount];
    if (eventTypes) values.push(eventTypes);
    // Deliberately not a prepared statement: a generic plan cannot see the position and, on a large
    // log, sorts the whole table instead of walking the (transaction_id, global_position) index.
    const result = await this.pool.query<SnapshotRow<EventRow & { n: string }>>({
      text: `WITH ${HORIZON}
        SELECT CASE WHEN coalesce(page.n, 1) = 1 THEN snapshot.s::text END AS snapshot, page.*
          FROM snapshot LEFT JOIN LATERAL (
            SELECT ordered.*, row_number() OVER () AS n FROM (
              SELECT ${COLUMNS} FROM events
               WHERE (transaction_id, global_position) > ($2::text::xid8, $3::bigint) AND ${VISIBLE} ${typeFilter}
               ORDER BY transaction_id, global_position
               LIMIT $4) ordered) page ON true
         ORDER BY page.n`,
      values,
    });
    this.horizon.observe(result.rows[0]?.snapshot);
    return result.rows.filter((row) => row.event_id !== null).map((row) => toRecordedEvent(row as EventRow));
  }

  subscribeToAll(options: SubscribeOptions = {}): EventSubscription {
    return pollingSubscription(this, options);
  }

  /** Resolves on the next append anywhere (or after `timeoutMs`): the cue to read again. */
  waitForAppend(timeoutMs: number): Promise<void> {
    return this.appendSignal.next(timeoutMs);
  }

  /**
   * Readers here wake at once; other instances hear a NOTIFY sent after the append, never inside
   * it: PostgreSQL serialises the commits of notifying transactions, fsync included, which would
   * cap appends at one per disk flush. Bursts collapse into one notification in flight at a time.
   */
  private announceAppend(): void {
    this.appendSignal.wake();
    if (this.notifying) {
      this.notifyAgain = true;
      return;
    }
    this.notifying = true;
    void this.pool
      .query(`SELECT pg_notify('${APPEND_CHANNEL}', '')`)
      .catch(() => undefined)
      .finally(() => {
        this.notifying = false;
        if (this.notifyAgain) {
          this.notifyAgain = false;
          this.announceAppend();
        }
      });
  }

  /** One backward step on the (transaction_id, global_position) index below the horizon. */
  async headPosition(): Promise<GlobalPosition> {
    const result = await this.pool.query<SnapshotRow<{ commit_position: string; global_position: string }>>({
      text: `WITH ${HORIZON}
        SELECT snapshot.s::text AS snapshot, head.* FROM snapshot LEFT JOIN LATERAL (
          SELECT transaction_id::text AS commit_position, global_position FROM events WHERE ${VISIBLE}
           ORDER BY transaction_id DESC, global_position DESC LIMIT 1) head ON true`,
      values: [await this.horizon.oldTransactions()],
    });
    this.horizon.observe(result.rows[0]?.snapshot);
    const row = result.rows[0];
    return row?.commit_position && row.global_position ? { commit: BigInt(row.commit_position), prepare: BigInt(row.global_position) } : START_POSITION;
  }

  async committedHeadPosition(): Promise<GlobalPosition> {
    const { rows } = await this.pool.query<{ commit_position: string; global_position: string }>(
      'SELECT transaction_id::text AS commit_position, global_position FROM events ORDER BY transaction_id DESC, global_position DESC LIMIT 1',
    );
    return rows[0] ? { commit: BigInt(rows[0].commit_position), prepare: BigInt(rows[0].global_position) } : START_POSITION;
  }

  /**
   * The difference of the identities (`prepare`): exact while every identity taken became an
   * event; an append rolled back (a conflict) leaves a gap, and appends whose identity and commit
   * order differ shift it by a few — an estimate, which `projections status` labels as one.
   */
  async approximateEventsBetween(after: GlobalPosition, upTo: GlobalPosition): Promise<number | null> {
    if (comparePositions(after, upTo) >= 0) return 0;
    return Math.max(1, Number(upTo.prepare - after.prepare));
  }

  async close(): Promise<void> {
    this.inline.stop();
    await this.appendSignal.close();
    await this.closePool();
  }

  private async currentRevision(streamId: string): Promise<bigint | 'no_stream'> {
    const result = await this.pool.query<{ revision: string | null }>('SELECT max(stream_revision) AS revision FROM events WHERE stream_id = $1', [streamId]);
    const revision = result.rows[0]?.revision;
    return revision === null || revision === undefined ? 'no_stream' : BigInt(revision);
  }
}

export function toRecordedEvent(row: EventRow): RecordedEvent {
  const event: RecordedEvent = {
    id: row.event_id,
    streamId: row.stream_id,
    revision: BigInt(row.stream_revision),
    position: { commit: BigInt(row.commit_position), prepare: BigInt(row.global_position) },
    type: row.type,
    data: row.data,
    metadata: row.metadata,
  };
  return row.applied_inline ? { ...event, appliedInline: row.applied_inline } : event;
}

interface NewStreamRow {
  stream_id: string;
  commit_position: string;
  global_position: string;
}

interface AppendedRow {
  stream_revision: string;
  commit_position: string;
  global_position: string;
}

type GuardFailure = { code?: string; guard?: number };

/** The hash an append follows, and whether it came from this process's memory rather than a read just made. */
interface StreamHead {
  readonly hash: Buffer | null;
  readonly known: boolean;
}

/** The stream's event at the expected revision does not have the hash this process remembered. */
class StaleStreamHead extends Error {
  constructor() {
    super('the stream head this process knew is not the stored one');
  }
}

/** The inline read models could not take the append's events; the append is made again without them. */
class InlineProjectionRefused extends Error {
  constructor(override readonly cause: unknown) {
    super('an inline read model could not apply the events');
  }
}

function appendResultOf(rows: readonly AppendedRow[], appliedInline: readonly string[]): AppendResult {
  const last = rows[rows.length - 1];
  return {
    nextExpectedRevision: BigInt(last.stream_revision),
    position: { commit: BigInt(last.commit_position), prepare: BigInt(last.global_position) },
    appliedInline,
  };
}

function isConnectionFailure(error: unknown): boolean {
  const code = (error as { code?: string }).code;
  return code === undefined || code.startsWith('08') || code === '57P01';
}

function isUniqueViolation(error: unknown, constraint: string): boolean {
  const pgError = error as { code?: string; constraint?: string };
  return pgError.code === '23505' && pgError.constraint === constraint;
}
