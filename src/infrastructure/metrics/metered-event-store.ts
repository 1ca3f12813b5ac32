import { WrongExpectedRevisionError } from '../../core/events.js';
import type { EventStore } from '../event-store/event-store.port.js';
import type { AppendOperation, AppendOutcome } from './service-metrics.js';

export interface AppendMeter {
  appendFinished(operation: AppendOperation, outcome: AppendOutcome, seconds: number, eventsAppended: number): void;
}

/** Any event store, with the time and outcome of every append and the events it wrote told to `meter`; reads pass through. */
export function withAppendMetrics(store: EventStore, meter: AppendMeter): EventStore {
  async function timed<T>(operation: AppendOperation, append: () => Promise<T>, appended: (result: T) => number): Promise<T> {
    const started = process.hrtime.bigint();
    const seconds = () => Number(process.hrtime.bigint() - started) / 1e9;
    let result: T;
    try {
      result = await append();
    } catch (error) {
      meter.appendFinished(operation, error instanceof WrongExpectedRevisionError ? 'conflict' : 'failed', seconds(), 0);
      throw error;
    }
    meter.appendFinished(operation, 'appended', seconds(), appended(result));
    return result;
  }
  return {
    transactionalGuards: store.transactionalGuards,
    appendToStream: (streamId, events, expected, options) => timed('append_to_stream', () => store.appendToStream(streamId, events, expected, options), () => events.length),
    appendToNewStreams: (streams) =>
      timed(
        'append_to_new_streams',
        () => store.appendToNewStreams(streams),
        ({ existing }) => {
          const skipped = new Set(existing);
          return streams.reduce((sum, stream) => (skipped.has(stream.streamId) ? sum : sum + stream.events.length), 0);
        },
      ),
    readStream: (streamId, options) => store.readStream(streamId, options),
    readStreams: (streamIds) => store.readStreams(streamIds),
    firstEventOfType: (streamIds, type) => store.firstEventOfType(streamIds, type),
    readAll: (options) => store.readAll(options),
    subscribeToAll: (options) => store.subscribeToAll(options),
    headPosition: () => store.headPosition(),
    committedHeadPosition: () => store.committedHeadPosition(),
    approximateEventsBetween: (after, upTo) => store.approximateEventsBetween(after, upTo),
    start: () => store.start(),
    close: () => store.close(),
  };
}
