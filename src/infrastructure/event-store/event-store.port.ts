import type { DomainEvent, EventMetadata, ExpectedRevision, GlobalPosition, RecordedEvent } from '../../core/events.js';

export interface NewEvent extends DomainEvent {
  /** Optional caller-chosen id (uuid); the store generates one otherwise. */
  readonly id?: string;
  readonly metadata: EventMetadata;
}

export interface AppendResult {
  /** Revision of the last appended event: pass it as `expectedRevision` next time. */
  readonly nextExpectedRevision: bigint;
  /** Global position of the last appended event: what read-your-writes waits for. */
  readonly position: GlobalPosition;
  /** The read-model versions (`name@version`) the append's own transaction projected the events into: nothing to wait for there. */
  readonly appliedInline: readonly string[];
}

/**
 * A condition the append needs to hold — a SQL boolean expression over the read models, compiled
 * by kysely (`sql\`EXISTS (…)\`.compile(db)`) — and what to throw when it does not. A store that
 * shares a transaction with the read models checks it in the append's own (`transactionalGuards`).
 */
export interface AppendGuard {
  readonly condition: { readonly sql: string; readonly parameters: readonly unknown[] };
  refusal(): Error;
}

/**
 * A condition a request makes of its first append only (an Idempotency-Key's claim, decision 0040):
 * added to that append's transaction on a store that checks guards there, then marked claimed.
 */
export interface AppendClaim {
  readonly guard: AppendGuard;
  claimed: boolean;
}

export interface AppendOptions {
  readonly guards?: readonly AppendGuard[];
}

/** A stream to create with its first events (as `appendToStream(streamId, events, 'no_stream')`). */
export interface NewStream {
  readonly streamId: string;
  readonly events: readonly NewEvent[];
}

export interface NewStreamsResult {
  /** The streams that existed already: nothing was appended to them. */
  readonly existing: readonly string[];
  /** Global position of the last appended event; null when every stream existed. */
  readonly position: GlobalPosition | null;
  /** As for `appendToStream`: read-model versions the appended events were projected into in the same transaction. */
  readonly appliedInline: readonly string[];
}

export interface ReadStreamOptions {
  /** Inclusive: the event at this revision and those after it. Omit to read from the first. */
  readonly fromRevision?: bigint;
}

export interface ReadAllOptions {
  /** Exclusive: events strictly after this position. Omit to start at the beginning. */
  readonly after?: GlobalPosition;
  readonly maxCount: number;
  readonly eventTypes?: readonly string[];
}

export interface SubscribeOptions {
  readonly after?: GlobalPosition;
  readonly eventTypes?: readonly string[];
}

/** Live feed of `$all` in global order: catches up from `after`, then follows new appends. */
export interface EventSubscription extends AsyncIterable<RecordedEvent> {
  close(): Promise<void>;
}

export interface EventStore {
  /**
   * Whether `appendToStream` checks `guards` in the append's own transaction with the read models
   * (PostgreSQL); a store that cannot (EventStoreDB) ignores them, and the caller checks them first.
   */
  readonly transactionalGuards: boolean;
  appendToStream(streamId: string, events: readonly NewEvent[], expectedRevision: ExpectedRevision, options?: AppendOptions): Promise<AppendResult>;
  /**
   * Creates many streams at once, each whole or not at all; a stream that already exists keeps
   * what it has and is named in `existing`. Not atomic across streams: a failure may leave some
   * created and others not, and calling again with the same streams finishes the rest.
   */
  appendToNewStreams(streams: readonly NewStream[]): Promise<NewStreamsResult>;
  /** The events of one stream, oldest first (from `fromRevision` on, if given); empty when the stream does not exist. */
  readStream(streamId: string, options?: ReadStreamOptions): Promise<RecordedEvent[]>;
  /** `readStream` of many streams at once: every id asked for is a key (empty list when absent). */
  readStreams(streamIds: readonly string[]): Promise<Map<string, RecordedEvent[]>>;
  /** The first event of `type` in each of some streams, in one read: a stream without one has no key. */
  firstEventOfType(streamIds: readonly string[], type: string): Promise<Map<string, RecordedEvent>>;
  readAll(options: ReadAllOptions): Promise<RecordedEvent[]>;
  subscribeToAll(options?: SubscribeOptions): EventSubscription;
  /** The position of the newest event visible to readers, for lag reports. */
  headPosition(): Promise<GlobalPosition>;
  /**
   * The position of the newest event committed so far, which the feed may not deliver yet (in
   * PostgreSQL, while an older transaction is still running): what a reader waits for to see every
   * change committed before it asked.
   */
  committedHeadPosition(): Promise<GlobalPosition>;
  /**
   * Roughly how many events of `$all` lie after `after` up to `upTo`, worked out from the positions
   * alone (no events are read): 0 when `after` is not before `upTo`, at least 1 when it is; null
   * when the store's positions cannot tell (EventStoreDB's are byte offsets in its log).
   */
  approximateEventsBetween(after: GlobalPosition, upTo: GlobalPosition): Promise<number | null>;
  /** Readies what the store needs before the first append (PostgreSQL: which inline read models are live). */
  start(): Promise<void>;
  close(): Promise<void>;
}

export const EVENT_STORE = Symbol('EventStore');
