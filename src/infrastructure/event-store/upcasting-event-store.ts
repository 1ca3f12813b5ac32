import type { RecordedEvent } from '../../core/events.js';
import { type Upcaster, upcastEvent } from '../../core/upcasting.js';
import type { AppendResult, EventStore, EventSubscription, NewEvent, ReadAllOptions, SubscribeOptions } from './event-store.port.js';

/** Any event store, with every event it returns upcast to its current schema version. */
export function withUpcasting(store: EventStore, upcasters: readonly Upcaster[]): EventStore {
  if (upcasters.length === 0) return store;
  const upcast = (event: RecordedEvent) => upcastEvent(event, upcasters);
  return {
    appendToStream: (streamId: string, events: readonly NewEvent[], expected): Promise<AppendResult> => store.appendToStream(streamId, events, expected),
    readStream: async (streamId) => (await store.readStream(streamId)).map(upcast),
    readAll: async (options: ReadAllOptions) => (await store.readAll(options)).map(upcast),
    subscribeToAll(options?: SubscribeOptions): EventSubscription {
      const subscription = store.subscribeToAll(options);
      async function* upcastFeed() {
        for await (const event of subscription) yield upcast(event);
      }
      const iterator = upcastFeed();
      return { [Symbol.asyncIterator]: () => iterator, close: () => subscription.close() };
    },
    headPosition: () => store.headPosition(),
    close: () => store.close(),
  };
}
