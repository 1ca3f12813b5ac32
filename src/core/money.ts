/**
 * Money travels through events as decimal strings and through JSON as numbers (see
 * docs/decisions/0002-money-representation.md). These helpers are the only conversions.
 */
const DECIMAL = /^-?\d{1,15}(\.\d{1,4})?$/;
const FOUR_DECIMAL_TEXT = /^-?\d+(\.\d{1,4})?$/;

/**
 * Amounts from clients stay below 10^13 in magnitude: numeric(19,4) holds 10^15, and the headroom
 * keeps derived figures (available credit = limit + balance) inside the column too.
 */
export const MONEY_MAGNITUDE_LIMIT = 1e13;

/** A JSON number with at most 4 decimals as its exact decimal string ("-12.5" stays "-12.5"). */
export function toDecimalString(value: number): string {
  if (!Number.isFinite(value)) throw new RangeError(`Not a finite amount: ${value}`);
  // The shortest text that reads back as the same double: what the client wrote, when it validated.
  const shortest = String(value);
  const text = FOUR_DECIMAL_TEXT.test(shortest) ? shortest : value.toFixed(4);
  return normaliseDecimal(text);
}

export function isDecimalString(text: string): boolean {
  return DECIMAL.test(text);
}

/** A numeric(19,4) text from PostgreSQL or an event, as the JSON number clients receive. */
export function toAmountNumber(decimal: string | null): number | null {
  return decimal === null ? null : Number(decimal);
}

/**
 * True when the number, written as the shortest decimal that reads back as the same double (what
 * JSON.stringify sends), has at most 4 decimals. Exact: 0.30000000000000004 (0.1 + 0.2) and 1e-7
 * are refused rather than silently rounded; Infinity and NaN are refused.
 */
export function hasAtMostFourDecimals(value: number): boolean {
  return Number.isFinite(value) && FOUR_DECIMAL_TEXT.test(String(value));
}

/** A client amount the service stores exactly: finite, at most 4 decimals, |value| < 10^13. */
export function isMoneyAmount(value: unknown): value is number {
  return typeof value === 'number' && hasAtMostFourDecimals(value) && Math.abs(value) < MONEY_MAGNITUDE_LIMIT;
}

/** A decimal string without trailing zeros ("12.5000" → "12.5", "-0" → "0"): one amount, one spelling. */
export function normaliseDecimal(text: string): string {
  if (!text.includes('.')) return text === '-0' ? '0' : text;
  const trimmed = text.replace(/0+$/, '').replace(/\.$/, '');
  return trimmed === '-0' ? '0' : trimmed;
}

/** Compares two decimal strings exactly (sign of a − b), as ten-thousandths: no floating point. */
export function compareDecimals(a: string, b: string): number {
  const difference = tenThousandthsOf(a) - tenThousandthsOf(b);
  return difference === 0n ? 0 : difference < 0n ? -1 : 1;
}

/** A decimal string as a whole number of ten-thousandths: exact sums and comparisons without floating point. */
export function tenThousandthsOf(text: string): bigint {
  const negative = text.startsWith('-');
  const [whole, fraction = ''] = (negative ? text.slice(1) : text).split('.');
  const magnitude = BigInt(whole || '0') * 10_000n + BigInt((fraction + '0000').slice(0, 4));
  return negative ? -magnitude : magnitude;
}

/** Ten-thousandths back to a normalised decimal string. */
export function decimalOfTenThousandths(value: bigint): string {
  const negative = value < 0n;
  const magnitude = negative ? -value : value;
  const fraction = (magnitude % 10_000n).toString().padStart(4, '0');
  return normaliseDecimal(`${negative ? '-' : ''}${magnitude / 10_000n}.${fraction}`);
}
