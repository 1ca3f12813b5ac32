import { randomUUID } from 'node:crypto';
import type { EventMetadata, GlobalPosition, RecordedEvent } from '../../core/events.js';
import type { EventStore, EventSubscription, NewEvent } from './event-store.port.js';

/** Events, streams and readers for the event store contract suites. */

export const metadata = (overrides: Partial<EventMetadata> = {}): EventMetadata => ({
  userId: randomUUID(),
  actor: 'user',
  requestId: randomUUID(),
  causationId: randomUUID(),
  correlationId: randomUUID(),
  occurredAt: new Date('2026-11-22T10:00:00.000Z').toISOString(),
  schemaVersion: 1,
  ...overrides,
});

export const event = (type: string, data: unknown = {}): NewEvent => ({ type, data, metadata: metadata() });
export const stream = (): string => `test-${randomUUID()}`;

/**
 * Drains a subscription into a list in the background, so no pending read is ever abandoned. Only
 * the test's own streams are kept: on a server shared with other suites, a subscription started
 * from the head position may first deliver older events that only just became visible.
 */
export function collect(subscription: EventSubscription, streamIds: readonly string[]) {
  const wanted = new Set(streamIds);
  const received: RecordedEvent[] = [];
  let failure: unknown = null;
  void (async () => {
    try {
      for await (const recorded of subscription) if (wanted.has(recorded.streamId)) received.push(recorded);
    } catch (error) {
      failure = error;
    }
  })();
  return {
    received,
    async atLeast(count: number, timeoutMs = 5000): Promise<RecordedEvent[]> {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (failure) throw failure;
        if (Date.now() > deadline) throw new Error(`received ${received.length} of ${count} events before the timeout`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      return received.slice(0, count);
    },
  };
}

/** Reads `$all` from `after` until the test's streams have `count` events visible (a transaction elsewhere may delay them). */
export async function readMine(store: EventStore, after: GlobalPosition, streamIds: readonly string[], count: number): Promise<RecordedEvent[]> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const mine = (await store.readAll({ after, maxCount: 10_000 })).filter((e) => streamIds.includes(e.streamId));
    if (mine.length >= count || Date.now() > deadline) return mine;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
