import { isDecimalString } from '../../../core/money.js';

/**
 * One valuation of an account's holdings, to the cent: `holdingsValue = Σ marketValue`,
 * `totalValue = cash + holdingsValue`. The account's balance, its positions and today's snapshot
 * are all this one valuation, so they agree to the cent. Exact: integer cents as bigint.
 */
export interface HoldingsValuation {
  readonly cash: string;
  readonly holdingsValue: string;
  readonly totalValue: string;
}

/** A decimal string in cents, rounded half away from zero (a provider may send more places). */
export function toCents(decimal: string): bigint {
  if (!isDecimalString(decimal)) throw new RangeError(`Not a decimal amount: ${decimal}`);
  const negative = decimal.startsWith('-');
  const [whole, fraction = ''] = decimal.replace(/^[-+]/, '').split('.');
  const hundredths = BigInt(whole!) * 100n + BigInt(fraction.padEnd(2, '0').slice(0, 2));
  const roundsUp = fraction.length > 2 && Number(fraction[2]) >= 5;
  const magnitude = hundredths + (roundsUp ? 1n : 0n);
  return negative ? -magnitude : magnitude;
}

export function formatCents(cents: bigint): string {
  const negative = cents < 0n;
  const magnitude = negative ? -cents : cents;
  return `${negative ? '-' : ''}${magnitude / 100n}.${(magnitude % 100n).toString().padStart(2, '0')}`;
}

export function valueHoldings(cash: string, marketValues: readonly string[]): HoldingsValuation {
  const cashCents = toCents(cash);
  const holdingsCents = marketValues.reduce((sum, value) => sum + toCents(value), 0n);
  return { cash: formatCents(cashCents), holdingsValue: formatCents(holdingsCents), totalValue: formatCents(cashCents + holdingsCents) };
}
