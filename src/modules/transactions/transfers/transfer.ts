import { tenThousandthsOf } from '../../../core/money.js';
import type { DomainEvent } from '../../../core/events.js';

/** The other side of a transfer between two of the user's accounts. */
export interface TransferCounterpart {
  readonly transactionId: string;
  readonly accountId: string;
}

export const PAIRED_BY = ['automatic', 'user'] as const;
export type PairedBy = (typeof PAIRED_BY)[number];

/**
 * Why a transaction left its pair: `user` (unpaired by hand, or paired by hand with another; the
 * two are never paired automatically again), `counterpartUnpaired` (the other side left first),
 * `counterpartGone` (the other side was deleted, removed or replaced, or its account left),
 * `counterpartTaken` (the other side was paired with another meanwhile), `amountChanged`.
 */
export const UNPAIR_REASONS = ['user', 'counterpartUnpaired', 'counterpartGone', 'counterpartTaken', 'amountChanged'] as const;
export type UnpairReason = (typeof UNPAIR_REASONS)[number];

/** Recorded on both transactions' streams, one each (decision 0043). */
export type TransferPaired = DomainEvent<'TransferPaired', { transactionId: string; counterpart: TransferCounterpart; pairedBy: PairedBy }>;
export type TransferUnpaired = DomainEvent<'TransferUnpaired', { transactionId: string; counterpart: TransferCounterpart; reason: UnpairReason }>;

/** Automatic pairing looks this many days either side of a transaction's date. */
export const TRANSFER_WINDOW_DAYS = 5;

/** Opposite amounts of equal size, neither zero: what a transfer's two sides show. */
export function amountsMirror(amount: string, other: string): boolean {
  const a = tenThousandthsOf(amount);
  return a !== 0n && a === -tenThousandthsOf(other);
}
