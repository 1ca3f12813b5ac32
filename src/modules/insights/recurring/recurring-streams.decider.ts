import type { Decider } from '../../../core/decider.js';
import {
  evolveRecurringStreams,
  initialRecurringStreamsState,
  type RecurringStreamSnapshot,
  type RecurringStreamsEvent,
  type RecurringStreamsState,
} from './recurring-streams.js';

/**
 * One refresh's findings: the streams active on the day it ran, and the ids of streams it still
 * detects but finds overdue. A recorded stream in neither is no longer detected at all.
 */
export type RecurringStreamsCommand = {
  readonly type: 'RecordDetection';
  readonly active: readonly RecurringStreamSnapshot[];
  readonly overdueIds: readonly string[];
};

/** Appends only what changed: a new or changed stream, a stream revived, a stream that stopped. */
export function decideRecurringStreams(command: RecurringStreamsCommand, state: RecurringStreamsState): RecurringStreamsEvent[] {
  switch (command.type) {
    case 'RecordDetection': {
      const events: RecurringStreamsEvent[] = [];
      const activeIds = new Set(command.active.map((snapshot) => snapshot.recurringStreamId));
      for (const snapshot of command.active) {
        const recorded = state.streams.get(snapshot.recurringStreamId);
        if (recorded === undefined || recorded.tombstoned || !sameSnapshot(recorded.snapshot, snapshot)) events.push({ type: 'RecurringStreamUpdated', data: snapshot });
      }
      const overdue = new Set(command.overdueIds);
      for (const [recurringStreamId, recorded] of state.streams) {
        if (recorded.tombstoned || activeIds.has(recurringStreamId)) continue;
        events.push({ type: 'RecurringStreamTombstoned', data: { recurringStreamId, reason: overdue.has(recurringStreamId) ? 'overdue' : 'not-detected' } });
      }
      return events;
    }
  }
}

/** Field by field: a snapshot read back from the store may hold its keys in another order. */
export function sameSnapshot(a: RecurringStreamSnapshot, b: RecurringStreamSnapshot): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]) as Set<keyof RecurringStreamSnapshot>;
  for (const key of keys) {
    const [left, right] = [a[key], b[key]];
    if (Array.isArray(left) && Array.isArray(right)) {
      if (left.length !== right.length || left.some((value, index) => value !== right[index])) return false;
    } else if (left !== right) return false;
  }
  return true;
}

export const recurringStreamsDecider: Decider<RecurringStreamsCommand, RecurringStreamsEvent, RecurringStreamsState> = {
  decide: decideRecurringStreams,
  evolve: evolveRecurringStreams,
  initialState: initialRecurringStreamsState,
};
