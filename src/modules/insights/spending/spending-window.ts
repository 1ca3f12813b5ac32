import { civilFromDay, dayFromCivil, type DayNumber, weekday } from '../../../core/calendar-day.js';

export const SPENDING_PERIODS = ['1w', '1m', '3m', '6m', '1y', 'ytd', 'all'] as const;
export type SpendingPeriod = (typeof SPENDING_PERIODS)[number];
export const DEFAULT_SPENDING_PERIOD: SpendingPeriod = '1m';

export type BucketSize = 'day' | 'week' | 'month';

/**
 * The days a period covers, both ends included, and how they are bucketed. `end` is today in the
 * user's time zone; a transaction's day is its `date`, so the zone decides only which day that is.
 */
export interface SpendingWindow {
  readonly start: DayNumber;
  readonly end: DayNumber;
  readonly bucketSize: BucketSize;
}

/** Trailing days (today included) and bucket size of the periods that are a fixed number of days. */
const TRAILING: Partial<Record<SpendingPeriod, { days: number; bucketSize: BucketSize }>> = {
  '1w': { days: 7, bucketSize: 'day' },
  '1m': { days: 30, bucketSize: 'day' },
  '3m': { days: 91, bucketSize: 'week' },
  '6m': { days: 182, bucketSize: 'week' },
  '1y': { days: 365, bucketSize: 'month' },
};

/** `firstDay`: the day of the first transaction (for `all`); none, or one after today: the window is today alone. */
export function spendingWindow(period: SpendingPeriod, today: DayNumber, firstDay: DayNumber | null): SpendingWindow {
  const trailing = TRAILING[period];
  if (trailing) return { start: today - trailing.days + 1, end: today, bucketSize: trailing.bucketSize };
  if (period === 'ytd') return { start: dayFromCivil(civilFromDay(today).year, 1, 1), end: today, bucketSize: 'month' };
  return { start: Math.min(firstDay ?? today, today), end: today, bucketSize: 'month' };
}

/**
 * The first day of the bucket holding `day`, clipped to the window: a day is its own bucket; a
 * week is an ISO week (Monday to Sunday); a month a calendar month. The window's first bucket
 * starts at the window's start, so it may be a part of a week or month.
 */
export function bucketStartOf(window: SpendingWindow, day: DayNumber): DayNumber {
  return Math.max(window.start, naturalBucketStart(window.bucketSize, day));
}

function naturalBucketStart(bucketSize: BucketSize, day: DayNumber): DayNumber {
  switch (bucketSize) {
    case 'day':
      return day;
    case 'week':
      return day - ((weekday(day) + 6) % 7);
    case 'month': {
      const { year, month } = civilFromDay(day);
      return dayFromCivil(year, month, 1);
    }
  }
}

/** Every bucket of the window, oldest first, by its first day. */
export function bucketStarts(window: SpendingWindow): DayNumber[] {
  const starts: DayNumber[] = [];
  for (let day = window.start; day <= window.end; day += 1) if (bucketStartOf(window, day) === day) starts.push(day);
  return starts;
}

/**
 * Where the window's sums are read from: whole calendar months inside the window from the monthly
 * table (`months`, first days, `to` excluded), every other day from the daily one. The month of
 * `end` is always read by day, since a transaction may be dated after today.
 */
export function aggregateSources(window: SpendingWindow): { months: { from: DayNumber; to: DayNumber } | null; days: Array<{ from: DayNumber; to: DayNumber }> } {
  const whole = { from: nextMonthStartFrom(window.start), to: naturalBucketStart('month', window.end) };
  if (window.bucketSize !== 'month' || whole.from >= whole.to) return { months: null, days: [{ from: window.start, to: window.end }] };
  const days = [{ from: window.start, to: whole.from - 1 }, { from: whole.to, to: window.end }].filter((range) => range.from <= range.to);
  return { months: whole, days };
}

function nextMonthStartFrom(day: DayNumber): DayNumber {
  const { year, month, day: dayOfMonth } = civilFromDay(day);
  if (dayOfMonth === 1) return day;
  return month === 12 ? dayFromCivil(year + 1, 1, 1) : dayFromCivil(year, month + 1, 1);
}
