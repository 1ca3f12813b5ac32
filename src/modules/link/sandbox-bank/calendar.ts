/** Business days and month steps for the sandbox's schedules, over core's day numbers. */
import { civilFromDay, dayFromCivil, type DayNumber, daysInMonth, formatIsoDate } from '../../../core/calendar-day.js';

export { civilFromDay, dayFromCivil, daysInMonth, formatIsoDate, parseIsoDate, type CivilDate, type DayNumber } from '../../../core/calendar-day.js';

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
