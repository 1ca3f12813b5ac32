/**
 * Calendar arithmetic on day numbers (days since 1970-01-01, UTC), so generating a large history
 * never allocates a Date. Algorithms after Howard Hinnant's `days_from_civil` / `civil_from_days`.
 */
export type DayNumber = number;

export interface CivilDate {
  readonly year: number;
  readonly month: number;
  readonly day: number;
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

export function dayFromCivil(year: number, month: number, day: number): DayNumber {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146097 + dayOfEra - 719468;
}

export function civilFromDay(dayNumber: DayNumber): CivilDate {
  const z = dayNumber + 719468;
  const era = Math.floor(z / 146097);
  const dayOfEra = z - era * 146097;
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36524) - Math.floor(dayOfEra / 146096)) / 365);
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const mp = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return { year: yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day };
}

export function daysInMonth(year: number, month: number): number {
  return month === 12 ? 31 : dayFromCivil(year, month + 1, 1) - dayFromCivil(year, month, 1);
}

export function parseIsoDate(text: string): DayNumber {
  const match = ISO_DATE.exec(text);
  if (match === null) throw new RangeError(`Not a YYYY-MM-DD date: ${text}`);
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) throw new RangeError(`Not a calendar date: ${text}`);
  return dayFromCivil(year, month, day);
}

const pad2 = (value: number): string => (value < 10 ? `0${value}` : `${value}`);

export function formatIsoDate(dayNumber: DayNumber): string {
  const { year, month, day } = civilFromDay(dayNumber);
  return `${year}-${pad2(month)}-${pad2(day)}`;
}

/** 0 = Sunday … 6 = Saturday. */
export function weekday(dayNumber: DayNumber): number {
  return (((dayNumber + 4) % 7) + 7) % 7;
}

export function isWeekend(dayNumber: DayNumber): boolean {
  const w = weekday(dayNumber);
  return w === 0 || w === 6;
}

export function nextBusinessDay(dayNumber: DayNumber): DayNumber {
  let d = dayNumber;
  while (isWeekend(d)) d += 1;
  return d;
}

export function previousBusinessDay(dayNumber: DayNumber): DayNumber {
  let d = dayNumber;
  while (isWeekend(d)) d -= 1;
  return d;
}

/** The same day-of-month `months` later, clamped to the month's end (Jan 31 + 1 month = Feb 28/29). */
export function addMonths(dayNumber: DayNumber, months: number): DayNumber {
  const { year, month, day } = civilFromDay(dayNumber);
  const index = year * 12 + (month - 1) + months;
  const targetYear = Math.floor(index / 12);
  const targetMonth = (index % 12) + 1;
  return dayFromCivil(targetYear, targetMonth, Math.min(day, daysInMonth(targetYear, targetMonth)));
}

export function dayInMonth(year: number, month: number, dayOfMonth: number): DayNumber {
  return dayFromCivil(year, month, Math.min(dayOfMonth, daysInMonth(year, month)));
}

/** ISO strings for a contiguous range, so formatting 100k dates is an array lookup. */
export function isoDateTable(firstDay: DayNumber, lastDay: DayNumber): (day: DayNumber) => string {
  const table: string[] = [];
  for (let d = firstDay; d <= lastDay; d += 1) table.push(formatIsoDate(d));
  return (day) => table[day - firstDay] ?? formatIsoDate(day);
}
