/**
 * Trading days for the sandbox market: every weekday from 1990-01-01 (a Monday) is a session;
 * holidays are ignored. Weekends carry Friday's close. Day numbers count days since 1970-01-01.
 */
const EPOCH_DAY = 7305; // 1990-01-01

export { dayFromCivil, formatIsoDate, parseIsoDate } from '../../../core/calendar-day.js';

/** The index of the last session on or before the day (0 = 1990-01-01). */
export function sessionIndex(dayNumber: number): number {
  const offset = dayNumber - EPOCH_DAY;
  const weekday = ((offset % 7) + 7) % 7;
  return Math.floor(offset / 7) * 5 + Math.min(weekday, 4);
}

export function sessionDay(index: number): number {
  return EPOCH_DAY + Math.floor(index / 5) * 7 + (index % 5);
}

export function isSession(dayNumber: number): boolean {
  return sessionDay(sessionIndex(dayNumber)) === dayNumber;
}
