import { type DayNumber, formatIsoDate, parseIsoDate } from '../../../core/calendar-day.js';
import { type BucketSize, bucketStartOf, bucketStarts, type SpendingWindow } from './spending-window.js';

export const AVERAGE_LABELS = ['daily', 'weekly', 'monthly', 'yearly'] as const;
const AVERAGE_LABEL_OF: Record<BucketSize, (typeof AVERAGE_LABELS)[number]> = { day: 'daily', week: 'weekly', month: 'monthly' };

/** Net money out on one day (or, from the monthly table, one whole month by its first day): Σ debits − Σ refunds. */
export interface NetSpending {
  readonly day: string;
  readonly net: string;
}

export interface SpendingSeries {
  readonly averageLabel: (typeof AVERAGE_LABELS)[number];
  readonly averageSpending: number;
  readonly totalSpending: number;
  readonly spending: Array<{ amount: number; date: string }>;
}

/**
 * The window's buckets, every one present: each bucket's amount is its net money out, or 0 when
 * refunds outweigh spending in it (a bucket never shows negative spending); the total is the sum
 * of the buckets shown, the average that total over the number of buckets, rounded half-even to
 * 4 decimals. Exact: amounts are summed as integer ten-thousandths.
 */
export function spendingSeries(window: SpendingWindow, nets: readonly NetSpending[]): SpendingSeries {
  const starts = bucketStarts(window);
  const byStart = new Map<DayNumber, bigint>(starts.map((start) => [start, 0n]));
  for (const { day, net } of nets) {
    const start = bucketStartOf(window, parseIsoDate(day));
    const sum = byStart.get(start);
    if (sum !== undefined) byStart.set(start, sum + toUnits(net));
  }
  const amounts = starts.map((start) => {
    const net = byStart.get(start) ?? 0n;
    return { start, units: net > 0n ? net : 0n };
  });
  const total = amounts.reduce((sum, { units }) => sum + units, 0n);
  return {
    averageLabel: AVERAGE_LABEL_OF[window.bucketSize],
    averageSpending: toNumber(divideHalfEven(total, BigInt(starts.length))),
    totalSpending: toNumber(total),
    spending: amounts.map(({ start, units }) => ({ amount: toNumber(units), date: formatIsoDate(start) })),
  };
}

const DECIMAL = /^(-?)(\d+)(?:\.(\d{1,4})0*)?$/;

/** A numeric(19,4) text as integer ten-thousandths. */
export function toUnits(decimal: string): bigint {
  const match = DECIMAL.exec(decimal);
  if (!match) throw new RangeError(`Not a decimal with at most 4 places: ${decimal}`);
  const magnitude = BigInt(match[2]) * 10_000n + BigInt((match[3] ?? '').padEnd(4, '0'));
  return match[1] === '-' ? -magnitude : magnitude;
}

function toNumber(units: bigint): number {
  const negative = units < 0n;
  const magnitude = negative ? -units : units;
  return Number(`${negative ? '-' : ''}${magnitude / 10_000n}.${String(magnitude % 10_000n).padStart(4, '0')}`);
}

function divideHalfEven(dividend: bigint, divisor: bigint): bigint {
  const quotient = dividend / divisor;
  const twiceRemainder = (dividend % divisor) * 2n;
  if (twiceRemainder > divisor || (twiceRemainder === divisor && quotient % 2n === 1n)) return quotient + 1n;
  return quotient;
}
