/** The limit that applies: the user's override wins over the institution's (or the one given at creation). */
export function effectiveCreditLimit(creditLimit: string | null, userOverride: string | null): string | null {
  return userOverride ?? creditLimit;
}

/** Credit left on a card (limit + signed balance); every other account: its balance. */
export function availableBalance(type: string, current: string, limit: string | null): string {
  if (type !== 'credit_card' || limit === null) return current;
  return addDecimals(limit, current);
}

/** Exact sum of two decimal strings with at most 4 decimals. */
export function addDecimals(a: string, b: string): string {
  const total = toTenThousandths(a) + toTenThousandths(b);
  const negative = total < 0n;
  const magnitude = negative ? -total : total;
  const whole = magnitude / 10_000n;
  const fraction = (magnitude % 10_000n).toString().padStart(4, '0').replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

function toTenThousandths(decimal: string): bigint {
  const negative = decimal.startsWith('-');
  const [whole, fraction = ''] = decimal.replace('-', '').split('.');
  const value = BigInt(whole) * 10_000n + BigInt((fraction + '0000').slice(0, 4));
  return negative ? -value : value;
}
