/**
 * Dates as whole days since 1970-01-01 (civil calendar, no time zone), so cadence arithmetic is
 * integer arithmetic. Conversions follow Howard Hinnant's `days_from_civil` / `civil_from_days`.
 */

export interface CivilDate {
  readonly year: number;
  readonly month: number;
  readonly day: number;
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

export function toDayNumber(isoDate: string): number {
  const match = ISO_DATE.exec(isoDate);
  if (match === null) throw new RangeError(`Not a YYYY-MM-DD date: ${isoDate}`);
  const year = Number(match[1]);
  const month = Number(match[2]);
  const day = Number(match[3]);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) {
    throw new RangeError(`Not a calendar date: ${isoDate}`);
  }
  return dayNumberOf(year, month, day);
}

export function dayNumberOf(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146097 + dayOfEra - 719468;
}

export function civilDateOf(dayNumber: number): CivilDate {
  const z = dayNumber + 719468;
  const era = Math.floor(z / 146097);
  const dayOfEra = z - era * 146097;
  const yearOfEra = Math.floor(
    (dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36524) - Math.floor(dayOfEra / 146096)) / 365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const shiftedMonth = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * shiftedMonth + 2) / 5) + 1;
  const month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9;
  return { year: yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day };
}

export function toIsoDate(dayNumber: number): string {
  const { year, month, day } = civilDateOf(dayNumber);
  return `${String(year).padStart(4, '0')}-${pad2(month)}-${pad2(day)}`;
}

export function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** Months since year 0, so consecutive months differ by one across year ends. */
export function monthIndexOf(date: CivilDate): number {
  return date.year * 12 + date.month - 1;
}

/** The day number of `anchorDay` in the month `monthIndex`, clamped to the month's last day. */
export function anchoredDay(monthIndex: number, anchorDay: number): number {
  const year = Math.floor(monthIndex / 12);
  const month = monthIndex - year * 12 + 1;
  return dayNumberOf(year, month, Math.min(anchorDay, daysInMonth(year, month)));
}

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

function pad2(value: number): string {
  return String(value).padStart(2, '0');
}
