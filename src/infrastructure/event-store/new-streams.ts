import { comparePositions, type GlobalPosition, WrongExpectedRevisionError } from '../../core/events.js';
import type { EventStore, NewStream, NewStreamsResult } from './event-store.port.js';

/** Appends in flight at once. */
const CONCURRENCY = 8;

/** `appendToNewStreams` as one `no_stream` append per stream: what a store without a bulk insert does. */
export async function appendToNewStreamsOneByOne(store: Pick<EventStore, 'appendToStream'>, streams: readonly NewStream[]): Promise<NewStreamsResult> {
  const existing: string[] = [];
  let appliedInline: Set<string> | null = null;
  let position: GlobalPosition | null = null;
  let next = 0;
  const worker = async () => {
    while (next < streams.length) {
      const { streamId, events } = streams[next];
      next += 1;
      if (events.length === 0) continue;
      try {
        const result = await store.appendToStream(streamId, events, 'no_stream');
        appliedInline = appliedInline === null ? new Set(result.appliedInline) : new Set(result.appliedInline.filter((key) => appliedInline?.has(key)));
        if (position === null || comparePositions(result.position, position) > 0) position = result.position;
      } catch (error) {
        if (!(error instanceof WrongExpectedRevisionError)) throw error;
        existing.push(streamId);
      }
    }
  };
  // Every worker ends before this returns or throws: nothing is left appending behind the caller.
  const outcomes = await Promise.allSettled(Array.from({ length: Math.min(CONCURRENCY, streams.length) }, worker));
  const failure = outcomes.find((outcome) => outcome.status === 'rejected');
  if (failure) throw failure.reason;
  // A read model counts as projected inline only if every stream's append projected into it.
  return { existing, position, appliedInline: [...(appliedInline ?? [])] };
}
