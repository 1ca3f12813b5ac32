import { unhandled } from '../../../core/exhaustive.js';
import type { DomainEvent } from '../../../core/events.js';
import type { DetectedFrequency, StreamType } from './recurring-stream.types.js';

/**
 * What recurring-stream detection found for one user, recorded as events on `recurring-<userId>`
 * so that the `recurring` read model rebuilds from `$all` like every other one. Only changes are
 * recorded: a refresh that finds what the stream already says appends nothing.
 */
export interface RecurringStreamSnapshot {
  /** The engine's stable identity (UUID v5 over account, direction, payee and cadence family). */
  readonly recurringStreamId: string;
  readonly accountId: string;
  readonly streamType: StreamType;
  readonly frequency: DetectedFrequency;
  readonly status: 'MATURE' | 'EARLY_DETECTION';
  /** Signed decimal strings, negative for outflows. */
  readonly averageAmount: string;
  readonly lastAmount: string;
  readonly firstDate: string;
  readonly lastDate: string;
  readonly predictedNextDate: string;
  /** The last day the stream is still active without another payment: predictedNextDate plus the cadence's grace. */
  readonly activeUntil: string;
  /** Oldest first. */
  readonly transactionIds: readonly string[];
  readonly merchantName: string | null;
  readonly description: string;
  /** The category most of its transactions carry (the most recent on a tie), or null. */
  readonly categoryId: string | null;
}

export type RecurringStreamUpdated = DomainEvent<'RecurringStreamUpdated', RecurringStreamSnapshot>;
/** `overdue`: no payment came within the grace; `not-detected`: its transactions no longer make a stream (removed, deleted, edited, their account gone). */
export type RecurringStreamTombstoned = DomainEvent<'RecurringStreamTombstoned', { recurringStreamId: string; reason: 'overdue' | 'not-detected' }>;

export type RecurringStreamsEvent = RecurringStreamUpdated | RecurringStreamTombstoned;
export const RECURRING_STREAMS_EVENT_TYPES: readonly RecurringStreamsEvent['type'][] = ['RecurringStreamUpdated', 'RecurringStreamTombstoned'];

export interface RecordedStream {
  readonly snapshot: RecurringStreamSnapshot;
  readonly tombstoned: boolean;
}

export interface RecurringStreamsState {
  readonly streams: ReadonlyMap<string, RecordedStream>;
}

export const initialRecurringStreamsState = (): RecurringStreamsState => ({ streams: new Map() });

export function evolveRecurringStreams(state: RecurringStreamsState, event: RecurringStreamsEvent): RecurringStreamsState {
  switch (event.type) {
    case 'RecurringStreamUpdated': {
      const streams = new Map(state.streams);
      streams.set(event.data.recurringStreamId, { snapshot: event.data, tombstoned: false });
      return { streams };
    }
    case 'RecurringStreamTombstoned': {
      const recorded = state.streams.get(event.data.recurringStreamId);
      if (recorded === undefined) return state;
      const streams = new Map(state.streams);
      streams.set(event.data.recurringStreamId, { ...recorded, tombstoned: true });
      return { streams };
    }
    default: {
      unhandled(event);
      return state;
    }
  }
}

export const RECURRING_STREAMS_STREAM_PREFIX = 'recurring-';

export function recurringStreamsStreamId(userId: string): string {
  return `${RECURRING_STREAMS_STREAM_PREFIX}${userId}`;
}
