/**
 * IANA time zones, through the runtime's own tz database (ICU): which names exist, and what
 * calendar day an instant falls on in one of them.
 */
export const DEFAULT_TIME_ZONE = 'UTC';

// An IANA name is letters, digits and `_+-/`; this keeps UTC offsets ("+05:00") and other
// spellings some ICU versions accept out of what clients may store.
const IANA_NAME = /^[A-Za-z][A-Za-z0-9_+\-/]{0,63}$/;

/**
 * The canonical spelling of an IANA time zone (`us/eastern` → `America/New_York`, `utc` → `UTC`),
 * or null when it names none.
 */
export function canonicalTimeZone(name: string): string | null {
  if (!IANA_NAME.test(name)) return null;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** The calendar day (YYYY-MM-DD) it is at `instant` in `timeZone`. */
export function calendarDayIn(timeZone: string, instant: Date): string {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
    if (formatters.size > 1000) formatters.clear();
    formatters.set(timeZone, formatter);
  }
  const part = (type: string) => formatter.formatToParts(instant).find((entry) => entry.type === type)?.value ?? '';
  return `${part('year').padStart(4, '0')}-${part('month')}-${part('day')}`;
}
