import type { Clock } from '../../../../core/clock.js';
import type { DomainEvent, RecordedEvent } from '../../../../core/events.js';
import { causeOf, reaction, traceOf } from '../../../../infrastructure/projections/reaction.js';
import { TRANSACTION_STREAM_PREFIX, type TransactionEvent } from '../../../transactions/transaction.js';
import { RECURRING_REFRESH_JOB, type RecurringRefreshInput, recurringRefreshJobId } from './recurring-refresh.job.js';
import { mayChangeRecurringStreams } from './recurring-transactions.source.js';

const TRANSACTION_EVENT_TYPES = ['TransactionCreated', 'TransactionImported', 'TransactionEdited', 'TransactionDeleted', 'TransactionRemoved', 'TransactionReplaced', 'TransferPaired', 'TransferUnpaired'];

/**
 * A change that may make, move or end a user's recurring stream — a transaction created, edited
 * in what detection reads, deleted, removed or replaced by a sync, paired or unpaired as a transfer; an account deleted; an item
 * or one of its accounts disconnected — asks for that user's refresh, one per debounce window: every change inside the
 * window shares the job, which runs when the window ends.
 */
export function recurringRefreshReaction(clock: Clock, debounceMs: number) {
  return reaction({
    name: 'recurring-refresh-requests',
    version: 1,
    eventTypes: [...TRANSACTION_EVENT_TYPES, 'AccountDeleted', 'LinkItemDisconnected', 'LinkItemAccountDisconnected'],
    reactsTo: (event: DomainEvent) => !TRANSACTION_EVENT_TYPES.includes(event.type) || mayChangeRecurringStreams(event as TransactionEvent),
    jobsFor(events) {
      const firstByUser = new Map<string, RecordedEvent>();
      for (const event of events) {
        if (event.type.startsWith('Transaction') && !event.streamId.startsWith(TRANSACTION_STREAM_PREFIX)) continue;
        if (!firstByUser.has(event.metadata.userId)) firstByUser.set(event.metadata.userId, event);
      }
      const now = clock.now();
      return [...firstByUser].map(([userId, event]) => {
        const { jobId, delayMs } = recurringRefreshJobId(userId, now, debounceMs);
        const input: RecurringRefreshInput = { userId, trace: traceOf(event) };
        return { name: RECURRING_REFRESH_JOB, input, jobId, delayMs, cause: causeOf(event) };
      });
    },
  });
}
