import type { DomainEvent } from '../../../core/events.js';
import { invalid, type ValidationIssue, ValidationFailedError } from '../../../core/errors.js';
import { decimalOfTenThousandths, tenThousandthsOf } from '../../../core/money.js';

/** One part of a split transaction; `amount` a decimal string with the transaction's sign. */
export interface SplitPart {
  readonly splitId: string;
  readonly amount: string;
  readonly categoryId: string | null;
  readonly notes: string | null;
}

export const MIN_SPLIT_PARTS = 2;
export const MAX_SPLIT_PARTS = 50;

/** The parts replace whatever parts there were (`previousSplits`, for the history). */
export type TransactionSplit = DomainEvent<'TransactionSplit', { transactionId: string; splits: SplitPart[]; previousSplits: SplitPart[] }>;
/** `user`: `{splits: []}`; `amountChanged`: the amount changed (by its provider or the user), so the parts no longer sum to it. */
export type TransactionSplitsCleared = DomainEvent<'TransactionSplitsCleared', { transactionId: string; reason: 'user' | 'amountChanged'; previousSplits: SplitPart[] }>;

/**
 * Refuses parts that cannot be the transaction's: fewer than 2 or more than 50, a part without
 * the transaction's sign (or zero), or parts that do not sum exactly to its amount.
 */
export function checkSplits(amount: string, splits: readonly Pick<SplitPart, 'amount'>[]): void {
  if (splits.length < MIN_SPLIT_PARTS) throw invalid(['splits'], `A split has at least ${MIN_SPLIT_PARTS} parts (or none, to remove the split)`, 'too_small');
  if (splits.length > MAX_SPLIT_PARTS) throw invalid(['splits'], `A split has at most ${MAX_SPLIT_PARTS} parts`, 'too_big');
  const total = tenThousandthsOf(amount);
  const sign = total < 0n ? -1n : 1n;
  const issues: ValidationIssue[] = [];
  if (total === 0n) issues.push({ code: 'custom', message: 'A transaction of amount 0 cannot be split', path: ['splits'] });
  splits.forEach((part, index) => {
    if (tenThousandthsOf(part.amount) * sign <= 0n) issues.push({ code: 'custom', message: `Each part has the transaction's sign (${total < 0n ? 'negative' : 'positive'}) and is not zero`, path: ['splits', index, 'amount'] });
  });
  const sum = splits.reduce((acc, part) => acc + tenThousandthsOf(part.amount), 0n);
  if (issues.length === 0 && sum !== total) {
    issues.push({ code: 'custom', message: `The parts sum to ${decimalOfTenThousandths(sum)}, not the transaction's amount ${decimalOfTenThousandths(total)}`, path: ['splits'] });
  }
  if (issues.length > 0) throw new ValidationFailedError(issues);
}

/** Equal parts, ids apart: a split written again records nothing. */
export function sameSplits(a: readonly SplitPart[], b: readonly SplitPart[]): boolean {
  const shape = (parts: readonly SplitPart[]) => JSON.stringify(parts.map((part) => [tenThousandthsOf(part.amount).toString(), part.categoryId, part.notes]));
  return shape(a) === shape(b);
}
