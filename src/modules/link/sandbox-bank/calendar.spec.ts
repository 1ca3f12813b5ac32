import fc from 'fast-check';
import { addMonths, civilFromDay, dayFromCivil, formatIsoDate, nextBusinessDay, parseIsoDate, previousBusinessDay, weekday } from './calendar.js';

describe('calendar day numbers', () => {
  it('round-trips every day between 1900 and 2200', () => {
    fc.assert(
      fc.property(fc.integer({ min: -25567, max: 84000 }), (day) => {
        const { year, month, day: dayOfMonth } = civilFromDay(day);
        expect(dayFromCivil(year, month, dayOfMonth)).toBe(day);
        expect(parseIsoDate(formatIsoDate(day))).toBe(day);
      }),
    );
  });

  it('knows weekdays, business days and month ends', () => {
    expect(formatIsoDate(0)).toBe('1970-01-01');
    expect(weekday(parseIsoDate('2026-11-21'))).toBe(6);
    expect(formatIsoDate(nextBusinessDay(parseIsoDate('2026-11-21')))).toBe('2026-11-23');
    expect(formatIsoDate(previousBusinessDay(parseIsoDate('2026-11-22')))).toBe('2026-11-20');
    expect(formatIsoDate(addMonths(parseIsoDate('2024-01-31'), 1))).toBe('2024-02-29');
    expect(() => parseIsoDate('2025-02-29')).toThrow(RangeError);
  });
});
