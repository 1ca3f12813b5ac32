import type { FieldChange, TransactionEvent, TransactionState } from './transaction.js';

/**
 * A new amount, by the user or the provider, undoes what was true of the old one: the parts no
 * longer sum to it, and the other side of a transfer no longer mirrors it. Both are recorded
 * after the edit, so the history says why they went.
 */
export function afterAmountChange(transactionId: string, changes: readonly FieldChange[], state: TransactionState): TransactionEvent[] {
  if (!changes.some((change) => change.field === 'amount' && JSON.stringify(change.oldValue) !== JSON.stringify(change.newValue))) return [];
  const events: TransactionEvent[] = [];
  if (state.splits.length > 0) events.push({ type: 'TransactionSplitsCleared', data: { transactionId, reason: 'amountChanged', previousSplits: [...state.splits] } });
  if (state.transfer) events.push({ type: 'TransferUnpaired', data: { transactionId, counterpart: state.transfer, reason: 'amountChanged' } });
  return events;
}
