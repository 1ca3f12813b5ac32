import { mulberry32 } from '../../../core/seeded-random.js';
import { anchoredDay, civilFromDay, formatIsoDate, monthIndexOf, parseIsoDate } from '../../../core/calendar-day.js';
import type { RecurringTransaction } from './recurring-stream.types.js';

/** Builders for hand-made histories: given these transactions, expect these streams. */

export const CHECKING = 'acc-checking';
export const SAVINGS = 'acc-savings';
export const CARD = 'acc-card';

export function transaction(fields: Partial<RecurringTransaction> & Pick<RecurringTransaction, 'id' | 'date' | 'amount' | 'name'>): RecurringTransaction {
  return {
    accountId: CHECKING,
    merchantName: null,
    counterparties: null,
    categorySystemKey: null,
    pending: false,
    ...fields,
  };
}

export interface SeriesSpec {
  readonly idPrefix: string;
  readonly dates: readonly string[];
  /** One amount for all, or one per date. */
  readonly amounts: string | readonly string[];
  readonly name: string;
  readonly merchantName?: string | null;
  readonly accountId?: string;
  readonly categorySystemKey?: string | null;
}

export function series(spec: SeriesSpec): RecurringTransaction[] {
  return spec.dates.map((date, position) =>
    transaction({
      id: `${spec.idPrefix}-${String(position + 1).padStart(3, '0')}`,
      date,
      amount: typeof spec.amounts === 'string' ? spec.amounts : (spec.amounts[position] as string),
      name: spec.name,
      merchantName: spec.merchantName ?? null,
      accountId: spec.accountId ?? CHECKING,
      categorySystemKey: spec.categorySystemKey ?? null,
    }),
  );
}

export function addDays(date: string, days: number): string {
  return formatIsoDate(parseIsoDate(date) + days);
}

export function everyNDays(start: string, step: number, count: number): string[] {
  return Array.from({ length: count }, (_, position) => addDays(start, position * step));
}

/** The same day of `count` consecutive months from `start`'s month, clamped to short months. */
export function monthlyOn(start: string, dayOfMonth: number, count: number): string[] {
  const firstMonth = monthIndexOf(civilFromDay(parseIsoDate(start)));
  return Array.from({ length: count }, (_, offset) => formatIsoDate(anchoredDay(firstMonth + offset, dayOfMonth)));
}

/** Saturday and Sunday move to the following Monday, as a biller's bank would post them. */
export function nextBusinessDay(date: string): string {
  const weekday = (parseIsoDate(date) + 4) % 7; // 1970-01-01 was a Thursday (4); 0 = Sunday
  if (weekday === 6) return addDays(date, 2);
  if (weekday === 0) return addDays(date, 1);
  return date;
}

/** A small deterministic generator so "random" histories are the same every run. */
export const seededRandom = mulberry32;
