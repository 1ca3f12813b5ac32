import type { TransactionEvent, TransactionState } from '../transaction.js';
import type { TransactionCommand } from '../transaction.decider.js';
import { amountsMirror, type PairedBy, type TransferCounterpart } from './transfer.js';

/** Runs one command on one transaction's stream: the HTTP path through the command bus, a job through handleCommand. */
export type RunTransactionCommand = (transactionId: string, command: TransactionCommand) => Promise<{ readonly events: readonly TransactionEvent[]; readonly state: TransactionState }>;

/** One side of a pair as the other side's stream records it, with the amount that must mirror. */
export interface PairSide extends TransferCounterpart {
  readonly amount: string;
}

/**
 * Pairs two transactions: `a`'s stream first, then `b`'s (decision 0043). Each stream decides for
 * itself, so a side taken meanwhile refuses and `a` leaves again; a crash between the two is
 * finished or undone by the transfer-pairing reaction. A pair either side was in before (a
 * pairing by hand replaces it) loses its other side too. True when the two are paired.
 */
export async function pairTransfer(run: RunTransactionCommand, a: PairSide, b: PairSide, pairedBy: PairedBy): Promise<boolean> {
  const first = await run(a.transactionId, { type: 'PairTransfer', transactionId: a.transactionId, counterpart: b, pairedBy });
  if (first.state.transfer?.transactionId !== b.transactionId) return false;
  const undo = () => run(a.transactionId, { type: 'UnpairTransfer', transactionId: a.transactionId, reason: 'counterpartTaken', onlyFrom: b.transactionId });
  const second = await run(b.transactionId, { type: 'PairTransfer', transactionId: b.transactionId, counterpart: a, pairedBy }).catch(async (error: unknown) => {
    await undo();
    throw error;
  });
  if (second.state.transfer?.transactionId !== a.transactionId) {
    await undo();
    return false;
  }
  await releaseFormerPartners(run, a.transactionId, first.events);
  await releaseFormerPartners(run, b.transactionId, second.events);
  return true;
}

/** Unpairs a transaction and its other side, by the user's hand: the two are never paired automatically again. */
export async function unpairTransfer(run: RunTransactionCommand, transactionId: string): Promise<void> {
  const outcome = await run(transactionId, { type: 'UnpairTransfer', transactionId, reason: 'user' });
  for (const counterpart of formerPartners(outcome.events)) {
    await run(counterpart.transactionId, { type: 'UnpairTransfer', transactionId: counterpart.transactionId, reason: 'user', onlyFrom: transactionId });
  }
}

/**
 * Brings a transaction's pair back to two sides that name each other: a side whose other side
 * left (deleted, removed, replaced, or paired elsewhere) leaves too; a pairing half done (its
 * other side is free to take it) is finished. What is consistent already appends nothing.
 */
export async function reconcileTransfer(run: RunTransactionCommand, read: (transactionId: string) => Promise<TransactionState>, transactionId: string): Promise<void> {
  const state = await read(transactionId);
  if (!state.transfer) return;
  const counterpartId = state.transfer.transactionId;
  if (state.status !== 'live') {
    await run(counterpartId, { type: 'UnpairTransfer', transactionId: counterpartId, reason: 'counterpartGone', onlyFrom: transactionId });
    return;
  }
  const other = await read(counterpartId);
  if (other.transfer?.transactionId === transactionId) return;
  if (other.status === 'live' && !other.transfer && pairable(state, other, transactionId, counterpartId) && state.accountId && state.current) {
    const completed = await run(counterpartId, {
      type: 'PairTransfer',
      transactionId: counterpartId,
      counterpart: { transactionId, accountId: state.accountId, amount: state.current.amount },
      pairedBy: 'automatic',
    }).catch(() => null);
    if (completed?.state.transfer?.transactionId === transactionId) return;
  }
  const reason = other.status === 'live' ? (other.transfer ? 'counterpartTaken' : 'counterpartUnpaired') : 'counterpartGone';
  await run(transactionId, { type: 'UnpairTransfer', transactionId, reason, onlyFrom: counterpartId });
}

/** Whether two transactions may be paired automatically: different accounts, mirrored amounts, and not unpaired by the user before. */
export function pairable(a: TransactionState, b: TransactionState, aId: string, bId: string): boolean {
  if (!a.current || !b.current || !a.accountId || !b.accountId || a.accountId === b.accountId) return false;
  return amountsMirror(a.current.amount, b.current.amount) && !a.neverPairWith.has(bId) && !b.neverPairWith.has(aId);
}

async function releaseFormerPartners(run: RunTransactionCommand, transactionId: string, events: readonly TransactionEvent[]): Promise<void> {
  for (const counterpart of formerPartners(events)) {
    await run(counterpart.transactionId, { type: 'UnpairTransfer', transactionId: counterpart.transactionId, reason: 'counterpartUnpaired', onlyFrom: transactionId });
  }
}

function formerPartners(events: readonly TransactionEvent[]): TransferCounterpart[] {
  return events.flatMap((event) => (event.type === 'TransferUnpaired' ? [event.data.counterpart] : []));
}
