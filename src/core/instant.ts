import { FIRST_ACCEPTED_DATE, isAcceptedIsoDate, LAST_ACCEPTED_DATE } from './calendar-day.js';

/** `2026-11-20T12:00:00Z`, `2026-11-20T13:00:00.250+01:00`: a date, a time to the minute or finer, and its offset from UTC. */
const ISO_INSTANT = /^(\d{4}-\d{2}-\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:(Z)|([+-])(\d{2}):(\d{2}))$/;

export const INSTANT_FORMAT = `an ISO 8601 timestamp with its offset (2026-11-20T12:00:00Z, 2026-11-20T13:00:00.250+01:00) between ${FIRST_ACCEPTED_DATE} and ${LAST_ACCEPTED_DATE}`;

/**
 * The instant an ISO 8601 timestamp names, to the millisecond (finer digits are cut off); null for
 * text that is not one, a day or time that does not exist, or a day outside the accepted range.
 * The offset is required: a time without one names no instant.
 */
export function parseInstant(text: unknown): Date | null {
  if (typeof text !== 'string') return null;
  const match = ISO_INSTANT.exec(text);
  if (!match) return null;
  const [, day, hours, minutes, seconds = '0', fraction = '', zulu, sign, offsetHours, offsetMinutes] = match;
  if (!isAcceptedIsoDate(day) || Number(hours) > 23 || Number(minutes) > 59 || Number(seconds) > 59) return null;
  if (!zulu && (Number(offsetHours) > 23 || Number(offsetMinutes) > 59)) return null;
  const [year, month, dayOfMonth] = day.split('-').map(Number);
  const local = Date.UTC(year, month - 1, dayOfMonth, Number(hours), Number(minutes), Number(seconds), Number(fraction.padEnd(3, '0').slice(0, 3)));
  const offset = zulu ? 0 : (sign === '-' ? -1 : 1) * (Number(offsetHours) * 60 + Number(offsetMinutes)) * 60_000;
  return new Date(local - offset);
}
