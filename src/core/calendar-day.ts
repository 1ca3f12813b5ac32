/**
 * Calendar arithmetic on day numbers (whole days since 1970-01-01, civil calendar, no time zone),
 * so date maths is integer maths and large histories never allocate a Date. Conversions follow
 * Howard Hinnant's `days_from_civil` / `civil_from_days`.
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
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** A `YYYY-MM-DD` calendar date as its day number; anything else is a RangeError. */
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
  return `${String(year).padStart(4, '0')}-${pad2(month)}-${pad2(day)}`;
}

/**
 * The calendar days the service accepts from clients. PostgreSQL would take far more (4713 BC to
 * 5874897 AD), but no personal-finance record predates 1900 or outlives 2199, and a bounded range
 * keeps every stored day inside what each read model, job and day-number loop handles.
 */
export const FIRST_ACCEPTED_DATE = '1900-01-01';
export const LAST_ACCEPTED_DATE = '2199-12-31';

/** A real `YYYY-MM-DD` day within FIRST_ACCEPTED_DATE..LAST_ACCEPTED_DATE (2025-02-30 is not one). */
export function isAcceptedIsoDate(value: unknown): value is string {
  if (typeof value !== 'string' || !ISO_DATE.test(value)) return false;
  try {
    parseIsoDate(value);
  } catch {
    return false;
  }
  // Fixed-width YYYY-MM-DD text sorts like the days it names.
  return value >= FIRST_ACCEPTED_DATE && value <= LAST_ACCEPTED_DATE;
}

/** 0 = Sunday … 6 = Saturday. */
export function weekday(dayNumber: DayNumber): number {
  return (((dayNumber + 4) % 7) + 7) % 7;
}

export function isWeekend(dayNumber: DayNumber): boolean {
  const w = weekday(dayNumber);
  return w === 0 || w === 6;
}

/** The day itself if it is a weekday, else the Monday after. */
export function nextBusinessDay(dayNumber: DayNumber): DayNumber {
  let d = dayNumber;
  while (isWeekend(d)) d += 1;
  return d;
}

/** The day itself if it is a weekday, else the Friday before. */
export function previousBusinessDay(dayNumber: DayNumber): DayNumber {
  let d = dayNumber;
  while (isWeekend(d)) d -= 1;
  return d;
}

/** Day `dayOfMonth` of the month, or the month's last day when the month is shorter (the 31st of February is the 28th or 29th). */
export function clampedDayOfMonth(year: number, month: number, dayOfMonth: number): DayNumber {
  return dayFromCivil(year, month, Math.min(dayOfMonth, daysInMonth(year, month)));
}

/** Months since year 0, so consecutive months differ by one across year ends. */
export function monthIndexOf(date: CivilDate): number {
  return date.year * 12 + date.month - 1;
}

/** The day number of `anchorDay` in the month `monthIndex` (see monthIndexOf), clamped to the month's last day. */
export function anchoredDay(monthIndex: number, anchorDay: number): DayNumber {
  const year = Math.floor(monthIndex / 12);
  return clampedDayOfMonth(year, monthIndex - year * 12 + 1, anchorDay);
}

/** The same day of the month `months` later, clamped to the month's end (Jan 31 + 1 month = Feb 28/29). */
export function addMonths(dayNumber: DayNumber, months: number): DayNumber {
  const date = civilFromDay(dayNumber);
  return anchoredDay(monthIndexOf(date) + months, date.day);
}

/** ISO strings for a contiguous range, so formatting 100k dates is an array lookup; days outside it are formatted as usual. */
export function isoDateTable(firstDay: DayNumber, lastDay: DayNumber): (day: DayNumber) => string {
  const table: string[] = [];
  for (let d = firstDay; d <= lastDay; d += 1) table.push(formatIsoDate(d));
  return (day) => table[day - firstDay] ?? formatIsoDate(day);
}
