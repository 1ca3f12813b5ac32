/**
 * Money travels through events as decimal strings and through JSON as numbers (see
 * docs/decisions/0002-money-representation.md). These helpers are the only conversions.
 */
const DECIMAL = /^-?\d{1,15}(\.\d{1,4})?$/;

/** A JSON number with at most 4 decimals as its exact decimal string ("-12.5" stays "-12.5"). */
export function toDecimalString(value: number): string {
  if (!Number.isFinite(value)) throw new RangeError(`Not a finite amount: ${value}`);
  const text = Number.isInteger(value) ? value.toFixed(0) : fourDecimalText(value);
  return normaliseDecimal(text);
}

export function isDecimalString(text: string): boolean {
  return DECIMAL.test(text);
}

/** A numeric(19,4) text from PostgreSQL or an event, as the JSON number clients receive. */
export function toAmountNumber(decimal: string | null): number | null {
  return decimal === null ? null : Number(decimal);
}

export function hasAtMostFourDecimals(value: number): boolean {
  if (!Number.isFinite(value)) return false;
  return Math.abs(value * 10_000 - Math.round(value * 10_000)) < 1e-6;
}

/** Callers validated at most 4 decimals, so toFixed(4) only strips binary noise such as 0.30000000000000004. */
function fourDecimalText(value: number): string {
  return value.toFixed(4);
}

function normaliseDecimal(text: string): string {
  if (!text.includes('.')) return text === '-0' ? '0' : text;
  const trimmed = text.replace(/0+$/, '').replace(/\.$/, '');
  return trimmed === '-0' ? '0' : trimmed;
}
