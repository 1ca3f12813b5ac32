import { comparePositions, type GlobalPosition, type RecordedEvent, START_POSITION } from '../../core/events.js';
import type { EventSubscription, ReadAllOptions, SubscribeOptions } from './event-store.port.js';

interface FeedReader {
  readAll(options: ReadAllOptions): Promise<RecordedEvent[]>;
  waitForAppend(timeoutMs: number): Promise<void>;
}

const BATCH = 500;
/** How long a quiet subscriber sleeps before looking again without a notification. */
const IDLE_POLL_MS = 250;

/** Catch-up then live over any store that can read `$all` in order and signal appends. */
export function pollingSubscription(reader: FeedReader, options: SubscribeOptions): EventSubscription {
  let closed = false;
  let position: GlobalPosition = options.after ?? START_POSITION;
  async function* events(): AsyncGenerator<RecordedEvent> {
    while (!closed) {
      const batch = await reader.readAll({ after: position, maxCount: BATCH, eventTypes: options.eventTypes });
      for (const event of batch) {
        if (closed) return;
        if (comparePositions(event.position, position) <= 0) continue;
        position = event.position;
        yield event;
      }
      if (batch.length < BATCH && !closed) await reader.waitForAppend(IDLE_POLL_MS);
    }
  }
  const iterator = events();
  return {
    [Symbol.asyncIterator]: () => iterator,
    async close() {
      closed = true;
      await iterator.return(undefined);
    },
  };
}
