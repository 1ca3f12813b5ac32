import { EMPTY_RECURRING_INDEX, addTransactions, indexedTransaction, type IndexedTransaction, type RecurringIndex } from './recurring-index.state.js';
import { presentStream } from './recurring-stream.presenter.js';
import type { DetectionOptions, RecurringStream, RecurringTransaction } from './recurring-stream.types.js';

/** Full run over one user's transactions. Deterministic: the same input gives the same streams and ids. */
export function detectRecurringStreams(
  transactions: readonly RecurringTransaction[],
  options: DetectionOptions,
): RecurringStream[] {
  return listRecurringStreams(addTransactions(EMPTY_RECURRING_INDEX, transactions), options);
}

/** The streams an index holds, as of `options.asOf`, ordered by account, direction, payee and start. */
export function listRecurringStreams(index: RecurringIndex, options: DetectionOptions): RecurringStream[] {
  const transactionOf = (id: string): RecurringTransaction => (indexedTransaction(index, id) as IndexedTransaction).transaction;
  const groupKeys = [...index.streamsByGroup.keys()].sort();
  const streams: RecurringStream[] = [];
  for (const groupKey of groupKeys) {
    const group = index.groups.get(groupKey);
    if (group === undefined) continue;
    const pendingDays = [...group.pending.values()].map((pending) => pending.occurrence.day);
    for (const detected of index.streamsByGroup.get(groupKey) ?? []) {
      streams.push(presentStream(detected, group, { transactionOf, pendingDays, asOf: options.asOf }));
    }
  }
  return streams;
}
