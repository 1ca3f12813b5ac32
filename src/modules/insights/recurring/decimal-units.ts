/**
 * Amounts as integer ten-thousandths (numeric(19,4) precision), so sums and averages are exact
 * and a run gives the same strings on every machine.
 */
const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/;
const UNITS_PER_WHOLE = 10_000;

export function toUnits(decimal: string): number {
  const match = DECIMAL.exec(decimal.trim());
  if (match === null) throw new RangeError(`Not a decimal amount: ${decimal}`);
  const fraction = (match[3] ?? '').padEnd(5, '0');
  const roundUp = Number(fraction[4]) >= 5 ? 1 : 0;
  const magnitude = Number(match[2]) * UNITS_PER_WHOLE + Number(fraction.slice(0, 4)) + roundUp;
  return match[1] === '-' && magnitude !== 0 ? -magnitude : magnitude;
}

export function fromUnits(units: number): string {
  const magnitude = Math.abs(Math.round(units));
  const whole = Math.floor(magnitude / UNITS_PER_WHOLE);
  const fraction = String(magnitude % UNITS_PER_WHOLE).padStart(4, '0').replace(/0+$/, '');
  const sign = units < 0 && magnitude !== 0 ? '-' : '';
  return fraction === '' ? `${sign}${whole}` : `${sign}${whole}.${fraction}`;
}

/** Rounds half away from zero, like a bank statement would. */
export function averageUnits(values: readonly number[]): number {
  let sum = 0;
  for (const value of values) sum += value;
  const mean = sum / values.length;
  return Math.sign(mean) * Math.round(Math.abs(mean));
}
