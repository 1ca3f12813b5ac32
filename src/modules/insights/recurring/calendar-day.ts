/** Month arithmetic for cadences, over core's day numbers. */

import { type CivilDate, dayFromCivil, daysInMonth } from '../../../core/calendar-day.js';

export { civilFromDay, dayFromCivil, daysInMonth, formatIsoDate, parseIsoDate, type CivilDate } from '../../../core/calendar-day.js';

/** Months since year 0, so consecutive months differ by one across year ends. */
export function monthIndexOf(date: CivilDate): number {
  return date.year * 12 + date.month - 1;
}

/** The day number of `anchorDay` in the month `monthIndex`, clamped to the month's last day. */
export function anchoredDay(monthIndex: number, anchorDay: number): number {
  const year = Math.floor(monthIndex / 12);
  const month = monthIndex - year * 12 + 1;
  return dayFromCivil(year, month, Math.min(anchorDay, daysInMonth(year, month)));
}

