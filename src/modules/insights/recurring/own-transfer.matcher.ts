/**
 * Money moved between the user's own accounts is not a stream. The provider's category says so
 * when it knows; otherwise a debit in one account and a credit of the same amount on the same day
 * in another is taken as one transfer. Only uncategorised, transfer and credit-card-payment
 * transactions are paired, so a paycheck and a rent payment that happen to match are left alone.
 * A card payment settles purchases the card already shows (its subscriptions are streams there);
 * a car, student or mortgage payment is the bill itself, so it stays a stream even when the loan
 * account is linked and shows the credit.
 */

export interface TransferCandidate {
  readonly id: string;
  readonly accountId: string;
  readonly day: number;
  readonly units: number;
}

export function isTransferCategory(categorySystemKey: string | null): boolean {
  return categorySystemKey !== null && /^TRANSFER_(IN|OUT)_/.test(categorySystemKey);
}

export function isPairable(categorySystemKey: string | null): boolean {
  return (
    categorySystemKey === null ||
    categorySystemKey === 'LOAN_PAYMENTS_CREDIT_CARD_PAYMENT' ||
    /^TRANSFER_(IN|OUT)_/.test(categorySystemKey)
  );
}

/** Transactions that can only pair with each other share a bucket. */
export function transferBucketOf(candidate: Pick<TransferCandidate, 'day' | 'units'>): string {
  return `${candidate.day}:${Math.abs(candidate.units)}`;
}

/** The ids paired as own-account transfers within one bucket; independent of input order. */
export function pairedTransferIds(bucket: readonly TransferCandidate[]): string[] {
  const byId = (a: TransferCandidate, b: TransferCandidate): number => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  const debits = bucket.filter((candidate) => candidate.units < 0).sort(byId);
  const credits = bucket.filter((candidate) => candidate.units > 0).sort(byId);
  const usedCredits = new Set<string>();
  const paired: string[] = [];
  for (const debit of debits) {
    const credit = credits.find((candidate) => !usedCredits.has(candidate.id) && candidate.accountId !== debit.accountId);
    if (credit === undefined) continue;
    usedCredits.add(credit.id);
    paired.push(debit.id, credit.id);
  }
  return paired;
}
