import { timeOrderedId } from '../../core/ids.js';
import {
  ANY,
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
import { fromEventStoreDbMetadata, toEventStoreDbMetadata } from './eventstoredb-metadata.js';
import { appendToNewStreamsOneByOne } from './new-streams.js';

/** The same port over EventStoreDB / KurrentDB, selected by `EVENTSTORE_URL`. */
export class EventStoreDbEventStore implements EventStore {
  readonly transactionalGuards = false;
  private readonly client: EventStoreDBClient;

  constructor(connectionString: string) {
    this.client = EventStoreDBClient.connectionString(connectionString);
  }

  async appendToStream(streamId: string, events: readonly NewEvent[], expectedRevision: ExpectedRevision): Promise<AppendResult> {
    if (events.length === 0) throw new Error('appendToStream needs at least one event');
    const expected = expectedRevision === 'no_stream' ? NO_STREAM : expectedRevision === 'any' ? ANY : expectedRevision;
    try {
      const result = await this.client.appendToStream(
        streamId,
        events.map((event) =>
          jsonEvent({ id: event.id ?? timeOrderedId(), type: event.type, data: event.data as never, metadata: { ...toEventStoreDbMetadata(event.metadata) } }),
        ),
        { expectedRevision: expected },
      );
      if (!result.position) throw new Error(`EventStoreDB returned no position for an append to ${streamId}`);
      return { nextExpectedRevision: result.nextExpectedRevision, position: result.position, appliedInline: [] };
    } catch (error) {
      if (error instanceof WrongExpectedVersionError) {
        const actual = error.actualVersion;
        throw new WrongExpectedRevisionError(streamId, expectedRevision, typeof actual === 'bigint' ? actual : 'no_stream');
      }
      throw error;
    }
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

function toRecordedEvent(resolved: ResolvedEvent | AllStreamResolvedEvent): RecordedEvent | null {
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
