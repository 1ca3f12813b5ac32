import type { RecordedEvent } from '../../core/events.js';
import type { UpcasterChain } from '../../core/upcasting.js';
import type { AppendResult, EventStore, EventSubscription, NewEvent, ReadAllOptions, SubscribeOptions } from './event-store.port.js';

/**
 * Any event store, with every event it returns upcast to its type's current schema version, and
 * every event it appends stamped with that version.
 */
export function withUpcasting(store: EventStore, schemas: UpcasterChain): EventStore {
  const upcast = (event: RecordedEvent) => schemas.upcast(event);
  // The feed must not stop at an event a newer release wrote (during a deploy): it goes to the
  // projectors as stored, where this release's old version parks it if it cannot apply it; the
  // newer release's version of the read model is the one that counts.
  const upcastForFeed = (event: RecordedEvent) => (event.metadata.schemaVersion > schemas.currentVersion(event.type) ? event : schemas.upcast(event));
  const stamped = (events: readonly NewEvent[]) => events.map((event) => ({ ...event, metadata: { ...event.metadata, schemaVersion: schemas.currentVersion(event.type) } }));
  return {
    transactionalGuards: store.transactionalGuards,
    appendToStream: (streamId: string, events: readonly NewEvent[], expected, options): Promise<AppendResult> => store.appendToStream(streamId, stamped(events), expected, options),
    appendToNewStreams: (streams) => store.appendToNewStreams(streams.map(({ streamId, events }) => ({ streamId, events: stamped(events) }))),
    readStream: async (streamId, options) => (await store.readStream(streamId, options)).map(upcast),
    readStreams: async (streamIds) => new Map([...(await store.readStreams(streamIds))].map(([streamId, events]) => [streamId, events.map(upcast)])),
    firstEventOfType: async (streamIds, type) => new Map([...(await store.firstEventOfType(streamIds, type))].map(([streamId, event]) => [streamId, upcast(event)])),
    readAll: async (options: ReadAllOptions) => (await store.readAll(options)).map(upcastForFeed),
    subscribeToAll(options?: SubscribeOptions): EventSubscription {
      const subscription = store.subscribeToAll(options);
      async function* upcastFeed() {
        for await (const event of subscription) yield upcastForFeed(event);
      }
      const iterator = upcastFeed();
      return { [Symbol.asyncIterator]: () => iterator, close: () => subscription.close() };
    },
    headPosition: () => store.headPosition(),
    committedHeadPosition: () => store.committedHeadPosition(),
    approximateEventsBetween: (after, upTo) => store.approximateEventsBetween(after, upTo),
    start: () => store.start(),
    close: () => store.close(),
  };
}
