/**
 * Exact arithmetic for the sandbox brokerage: money in integer cents, units in integer
 * ten-thousandths. `units × price` stays below 2^53 for any realistic holding, so plain numbers
 * are exact; rounding is half up to the cent.
 */
export const UNIT_SCALE = 10_000;

export function formatCents(cents: number): string {
  const magnitude = Math.abs(cents);
  const fraction = magnitude % 100;
  return `${cents < 0 ? '-' : ''}${Math.floor(magnitude / 100)}.${fraction < 10 ? '0' : ''}${fraction}`;
}

/** Ten-thousandths as a decimal with trailing zeros trimmed: 125000 → "12.5". */
export function formatScaled(value: number): string {
  const magnitude = Math.abs(value);
  const whole = Math.floor(magnitude / UNIT_SCALE);
  const fraction = String(magnitude % UNIT_SCALE).padStart(4, '0').replace(/0+$/, '');
  return `${value < 0 ? '-' : ''}${whole}${fraction === '' ? '' : `.${fraction}`}`;
}

/** Parses a decimal string with at most four places into ten-thousandths. */
export function parseScaled(text: string): number {
  const match = /^(-?)(\d+)(?:\.(\d{1,4}))?$/.exec(text);
  if (match === null) throw new RangeError(`Not a decimal with at most four places: ${text}`);
  const value = Number(match[2]) * UNIT_SCALE + Number((match[3] ?? '').padEnd(4, '0'));
  return match[1] === '-' ? -value : value;
}

export const parseCents = (text: string): number => parseScaled(text) / 100;

function divideRoundHalfUp(numerator: number, denominator: number): number {
  const quotient = Math.floor(numerator / denominator);
  return 2 * (numerator - quotient * denominator) >= denominator ? quotient + 1 : quotient;
}

/** The value of `units` (ten-thousandths) at `priceCents`, in cents. */
export function valueCents(units: number, priceCents: number): number {
  return divideRoundHalfUp(units * priceCents, UNIT_SCALE);
}

/** Average cost per unit in ten-thousandths of a dollar. */
export function averagePriceScaled(costCents: number, units: number): number {
  return units === 0 ? 0 : divideRoundHalfUp(costCents * 1_000_000, units);
}

export function scaleProportionally(amount: number, part: number, whole: number): number {
  return whole === 0 ? 0 : divideRoundHalfUp(amount * part, whole);
}
