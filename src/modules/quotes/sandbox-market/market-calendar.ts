/**
 * Trading days for the sandbox market: every weekday from 1990-01-01 (a Monday) is a session;
 * holidays are ignored. Weekends carry Friday's close. Day numbers count days since 1970-01-01.
 */
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const EPOCH_DAY = 7305; // 1990-01-01

export function dayFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  return era * 146097 + yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear - 719468;
}

export function parseIsoDate(text: string): number {
  const match = ISO_DATE.exec(text);
  if (match === null) throw new RangeError(`Not a YYYY-MM-DD date: ${text}`);
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const dayNumber = dayFromCivil(year, month, day);
  if (month < 1 || month > 12 || day < 1 || formatIsoDate(dayNumber) !== text) throw new RangeError(`Not a calendar date: ${text}`);
  return dayNumber;
}

export function formatIsoDate(dayNumber: number): string {
  const z = dayNumber + 719468;
  const era = Math.floor(z / 146097);
  const dayOfEra = z - era * 146097;
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36524) - Math.floor(dayOfEra / 146096)) / 365);
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const mp = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  return `${year}-${month < 10 ? '0' : ''}${month}-${day < 10 ? '0' : ''}${day}`;
}

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
