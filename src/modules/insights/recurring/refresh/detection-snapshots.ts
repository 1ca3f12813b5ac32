import { formatIsoDate, parseIsoDate } from '../../../../core/calendar-day.js';
import { listRecurringStreams } from '../detect-recurring-streams.js';
import type { RecurringIndex } from '../recurring-index.state.js';
import type { RecurringStreamSnapshot } from '../recurring-streams.js';
import type { RecurringStream } from '../recurring-stream.types.js';
import type { RecurringStreamsCommand } from '../recurring-streams.decider.js';

/**
 * The engine's findings on `asOf` as the command that records them: every active stream as a
 * snapshot (with the day it stays active until, so the read side can drop it the day it stops
 * even before the next refresh), and the ids of the detected streams already overdue.
 */
export function detectionToRecord(index: RecurringIndex, asOf: string, categoryIdOf: (transactionId: string) => string | null): RecurringStreamsCommand {
  const graceDays = new Map<string, number>();
  for (const detected of index.streamsByGroup.values()) for (const stream of detected) graceDays.set(stream.id, stream.fit.rule.graceDays);
  const active: RecurringStreamSnapshot[] = [];
  const overdueIds: string[] = [];
  for (const stream of listRecurringStreams(index, { asOf })) {
    if (!stream.isActive || stream.predictedNextDate === null) overdueIds.push(stream.id);
    else active.push(snapshotOf(stream, formatIsoDate(parseIsoDate(stream.predictedNextDate) + (graceDays.get(stream.id) ?? 0)), categoryIdOf));
  }
  return { type: 'RecordDetection', active, overdueIds };
}

function snapshotOf(stream: RecurringStream, activeUntil: string, categoryIdOf: (transactionId: string) => string | null): RecurringStreamSnapshot {
  if (stream.frequency === 'UNKNOWN' || (stream.status !== 'MATURE' && stream.status !== 'EARLY_DETECTION')) {
    throw new Error(`An active detected stream is ${stream.frequency} ${stream.status}: the engine never assigns that`);
  }
  return {
    recurringStreamId: stream.id,
    accountId: stream.accountId,
    streamType: stream.streamType,
    frequency: stream.frequency,
    status: stream.status,
    averageAmount: stream.averageAmount,
    lastAmount: stream.lastAmount,
    firstDate: stream.firstDate,
    lastDate: stream.lastDate,
    predictedNextDate: stream.predictedNextDate as string,
    activeUntil,
    transactionIds: [...stream.transactionIds],
    merchantName: stream.merchantName,
    description: stream.description,
    categoryId: mostCommonCategory(stream.transactionIds.map(categoryIdOf)),
  };
}

/**
 * The category most of the stream's transactions carry, the most recent on a tie (the engine's
 * rule for its system key), by id so that a user's own category shows too.
 */
export function mostCommonCategory(categoryIds: readonly (string | null)[]): string | null {
  const counts = new Map<string, number>();
  let best: string | null = null;
  let bestCount = 0;
  for (const id of categoryIds) {
    if (id === null) continue;
    const count = (counts.get(id) ?? 0) + 1;
    counts.set(id, count);
    if (count >= bestCount) {
      best = id;
      bestCount = count;
    }
  }
  return best;
}
