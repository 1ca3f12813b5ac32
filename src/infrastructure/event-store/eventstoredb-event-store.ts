import {
  BACKWARDS,
  END,
  EventStoreDBClient,
  FORWARDS,
  NO_STREAM,
  START,
  StreamNotFoundError,
  WrongExpectedVersionError,
  eventTypeFilter,
  excludeSystemEvents,
  jsonEvent,
  type AllStreamResolvedEvent,
  type ResolvedEvent,
} from '@eventstore/db-client';
import {
  comparePositions,
  type ExpectedRevision,
  type GlobalPosition,
  type RecordedEvent,
  START_POSITION,
  WrongExpectedRevisionError,
} from '../../core/events.js';
import type { AppendResult, EventStore, EventSubscription, NewEvent, NewStream, NewStreamsResult, ReadAllOptions, ReadStreamOptions, SubscribeOptions } from './event-store.port.js';
import { canonicalBodies, chainHash, chainOf, GENESIS_HASH, stampIds } from './event-chain.js';
import { chainLinkOf, fromEventStoreDbMetadata, toEventStoreDbMetadata } from './eventstoredb-metadata.js';
import { appendToNewStreamsOneByOne } from './new-streams.js';
import { StreamHeads } from './stream-heads.js';

/** The same port over EventStoreDB / KurrentDB, selected by `EVENTSTORE_URL`. */
export class EventStoreDbEventStore implements EventStore {
  readonly transactionalGuards = false;
  private readonly client: EventStoreDBClient;
  private readonly heads = new StreamHeads();

  constructor(connectionString: string) {
    this.client = EventStoreDBClient.connectionString(connectionString);
  }

  /**
   * Each event carries its links in the stream's hash chain in its metadata (decision 0044), worked
   * out here from the hash of the event at the expected revision: this process's own last append
   * to the stream knows it, else that one event is read. The server's check of the expected
   * revision keeps two racing appends from both chaining onto it. 'any' settles the revision first.
   */
  async appendToStream(streamId: string, events: readonly NewEvent[], expectedRevision: ExpectedRevision): Promise<AppendResult> {
    if (events.length === 0) throw new Error('appendToStream needs at least one event');
    const stamped = stampIds(events);
    for (;;) {
      const expected = expectedRevision === 'any' ? await this.lastRevision(streamId) : expectedRevision;
      try {
        return await this.appendChained(streamId, stamped, expected);
      } catch (error) {
        if (!(error instanceof WrongExpectedVersionError)) throw error;
        this.heads.delete(streamId);
        if (expectedRevision === 'any') continue;
        const actual = error.actualVersion;
        throw new WrongExpectedRevisionError(streamId, expectedRevision, typeof actual === 'bigint' ? actual : 'no_stream');
      }
    }
  }

  private async appendChained(streamId: string, events: readonly (NewEvent & { id: string })[], expected: bigint | 'no_stream'): Promise<AppendResult> {
    const previous = expected === 'no_stream' ? GENESIS_HASH : await this.hashAt(streamId, expected);
    const links = chainOf(previous, canonicalBodies(streamId, events, expected === 'no_stream' ? 0n : expected + 1n));
    const result = await this.client.appendToStream(
      streamId,
      events.map((event, index) => jsonEvent({ id: event.id, type: event.type, data: event.data as never, metadata: { ...toEventStoreDbMetadata(event.metadata, links[index]) } })),
      { expectedRevision: expected === 'no_stream' ? NO_STREAM : expected },
    );
    if (!result.position) throw new Error(`EventStoreDB returned no position for an append to ${streamId}`);
    this.heads.remember(streamId, result.nextExpectedRevision, links[links.length - 1].hash);
    return { nextExpectedRevision: result.nextExpectedRevision, position: result.position, appliedInline: [] };
  }

  /**
   * The hash of the stream's event at `revision`; for an event written before the chain, the hash
   * it would have had, worked out from the stream's first event on. A revision the stream does
   * not have yet answers any hash: the append that asks is refused.
   */
  private async hashAt(streamId: string, revision: bigint): Promise<Buffer> {
    const known = this.heads.at(streamId, revision);
    if (known) return known;
    const [event] = await this.readRaw(streamId, revision, 1n);
    if (!event) return GENESIS_HASH;
    const stored = chainLinkOf(event.metadata);
    if (stored) return stored.hash;
    let link = GENESIS_HASH;
    for (const earlier of await this.readRaw(streamId, 0n, revision + 1n)) {
      link = chainLinkOf(earlier.metadata)?.hash ?? chainHash(link, canonicalOf(earlier));
    }
    return link;
  }

  /** The stream's last revision, or 'no_stream'. */
  private async lastRevision(streamId: string): Promise<bigint | 'no_stream'> {
    try {
      for await (const resolved of this.client.readStream(streamId, { direction: BACKWARDS, fromRevision: END, maxCount: 1 })) {
        if (resolved.event) return resolved.event.revision;
      }
    } catch (error) {
      if (!(error instanceof StreamNotFoundError)) throw error;
    }
    return 'no_stream';
  }

  /** Up to `count` events from `fromRevision` on, with their metadata as stored. */
  private async readRaw(streamId: string, fromRevision: bigint, count: bigint): Promise<StoredEvent[]> {
    const events: StoredEvent[] = [];
    try {
      for await (const resolved of this.client.readStream(streamId, { direction: FORWARDS, fromRevision, maxCount: count })) {
        const event = resolved.event;
        if (event?.isJson) events.push({ id: event.id, streamId, revision: event.revision, type: event.type, data: event.data, metadata: (event.metadata ?? {}) as Record<string, unknown> });
      }
    } catch (error) {
      if (!(error instanceof StreamNotFoundError)) throw error;
    }
    return events;
  }

  /** EventStoreDB has no bulk create: one `no_stream` append per stream. */
  async start(): Promise<void> {
    // Nothing to ready: no read model is projected inline here.
  }

  appendToNewStreams(streams: readonly NewStream[]): Promise<NewStreamsResult> {
    return appendToNewStreamsOneByOne(this, streams);
  }

  async readStreams(streamIds: readonly string[]): Promise<Map<string, RecordedEvent[]>> {
    const unique = [...new Set(streamIds)];
    const read = await Promise.all(unique.map(async (streamId) => [streamId, await this.readStream(streamId)] as const));
    return new Map(read);
  }

  /** No index by type here: each stream is read, and its first event of the type kept. */
  async firstEventOfType(streamIds: readonly string[], type: string): Promise<Map<string, RecordedEvent>> {
    const found = new Map<string, RecordedEvent>();
    for (const [streamId, events] of await this.readStreams(streamIds)) {
      const first = events.find((event) => event.type === type);
      if (first) found.set(streamId, first);
    }
    return found;
  }

  async readStream(streamId: string, { fromRevision }: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const events: RecordedEvent[] = [];
    try {
      for await (const resolved of this.client.readStream(streamId, { direction: FORWARDS, fromRevision: fromRevision ?? START })) {
        const event = toRecordedEvent(resolved);
        if (event) events.push(event);
      }
    } catch (error) {
      if (error instanceof StreamNotFoundError) return [];
      throw error;
    }
    return events;
  }

  /** `$all` reads from an inclusive position and has no server-side type filter, so both are done here. */
  async readAll({ after, maxCount, eventTypes }: ReadAllOptions): Promise<RecordedEvent[]> {
    const wanted = eventTypes ? new Set(eventTypes) : null;
    const events: RecordedEvent[] = [];
    let from: GlobalPosition | undefined = after;
    for (;;) {
      let read = 0;
      let last: GlobalPosition | undefined;
      for await (const resolved of this.client.readAll({ direction: FORWARDS, fromPosition: from ?? START, maxCount: maxCount + 1 })) {
        read += 1;
        const position = resolved.event?.position;
        if (!position) continue;
        last = position;
        if (from && comparePositions(position, from) <= 0) continue;
        const event = toRecordedEvent(resolved);
        if (event && (!wanted || wanted.has(event.type))) events.push(event);
        if (events.length === maxCount) return events;
      }
      if (read < maxCount + 1 || !last) return events;
      from = last;
    }
  }

  subscribeToAll(options: SubscribeOptions = {}): EventSubscription {
    const subscription = this.client.subscribeToAll({
      fromPosition: options.after ?? START,
      filter: options.eventTypes ? eventTypeFilter({ regex: `^(${options.eventTypes.map(escapeRegex).join('|')})$` }) : excludeSystemEvents(),
    });
    async function* events(): AsyncGenerator<RecordedEvent> {
      for await (const resolved of subscription) {
        const event = toRecordedEvent(resolved);
        if (event) yield event;
      }
    }
    const iterator = events();
    return {
      [Symbol.asyncIterator]: () => iterator,
      async close() {
        await subscription.unsubscribe();
        await iterator.return(undefined);
      },
    };
  }

  /**
   * Exact: `$all` read backwards from its end, past any system events (this client's `readAll` has
   * no server-side filter), to the newest event the feed delivers. The read streams; leaving the
   * loop at the first such event cancels the rest.
   */
  async headPosition(): Promise<GlobalPosition> {
    for await (const resolved of this.client.readAll({ direction: BACKWARDS, fromPosition: END })) {
      const event = toRecordedEvent(resolved);
      if (event) return event.position;
    }
    return START_POSITION;
  }

  /** The server delivers an event once it is committed: the feed's head is the committed head. */
  committedHeadPosition(): Promise<GlobalPosition> {
    return this.headPosition();
  }

  /** Positions here are byte offsets in the server's log: no event count follows from them. */
  async approximateEventsBetween(after: GlobalPosition, upTo: GlobalPosition): Promise<number | null> {
    return comparePositions(after, upTo) >= 0 ? 0 : null;
  }

  async close(): Promise<void> {
    await this.client.dispose();
  }
}

/** A user event as the port gives it; null for EventStoreDB's own ($-prefixed) and non-JSON events. */
export function toRecordedEvent(resolved: ResolvedEvent | AllStreamResolvedEvent): RecordedEvent | null {
  const event = resolved.event;
  if (!event || event.type.startsWith('$') || event.streamId.startsWith('$') || !event.isJson) return null;
  if (!event.position) throw new Error(`EventStoreDB event ${event.id} has no $all position`);
  return {
    id: event.id,
    streamId: event.streamId,
    revision: event.revision,
    position: event.position,
    type: event.type,
    data: event.data,
    metadata: fromEventStoreDbMetadata((event.metadata ?? {}) as Record<string, unknown>),
  };
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

interface StoredEvent {
  readonly id: string;
  readonly streamId: string;
  readonly revision: bigint;
  readonly type: string;
  readonly data: unknown;
  readonly metadata: Record<string, unknown>;
}

/** The canonical JSON of an event as stored, its metadata under the port's names. */
function canonicalOf(event: StoredEvent): string {
  return canonicalBodies(event.streamId, [{ id: event.id, type: event.type, data: event.data, metadata: fromEventStoreDbMetadata(event.metadata) }], event.revision)[0];
}
