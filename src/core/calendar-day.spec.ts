import fc from 'fast-check';
import {
  addMonths,
  anchoredDay,
  civilFromDay,
  clampedDayOfMonth,
  dayFromCivil,
  formatIsoDate,
  isAcceptedIsoDate,
  isoDateTable,
  isWeekend,
  monthIndexOf,
  nextBusinessDay,
  parseIsoDate,
  previousBusinessDay,
  weekday,
} from './calendar-day.js';

describe('calendar day', () => {
  it('round-trips day numbers and refuses days that do not exist', () => {
    expect(formatIsoDate(parseIsoDate('2024-02-29'))).toBe('2024-02-29');
    expect(() => parseIsoDate('2025-02-30')).toThrow(RangeError);
    expect(() => parseIsoDate('2025-02-29')).toThrow(RangeError);
    expect(() => parseIsoDate('2025-1-1')).toThrow(RangeError);
  });

  it('round-trips every day between 1900 and 2200', () => {
    fc.assert(
      fc.property(fc.integer({ min: -25567, max: 84000 }), (day) => {
        const { year, month, day: dayOfMonth } = civilFromDay(day);
        expect(dayFromCivil(year, month, dayOfMonth)).toBe(day);
        expect(parseIsoDate(formatIsoDate(day))).toBe(day);
      }),
    );
  });

  it('counts every day from 1999 to 2101 across leap years, from day 0 on 1970-01-01', () => {
    const first = parseIsoDate('1999-01-01');
    const last = parseIsoDate('2101-12-31');
    for (let day = first; day <= last; day += 1) expect(parseIsoDate(formatIsoDate(day))).toBe(day);
    expect(last - first + 1).toBe(103 * 365 + 25); // 2000 is a leap year, 2100 is not
    expect(parseIsoDate('1970-01-01')).toBe(0);
    expect(formatIsoDate(0)).toBe('1970-01-01');
  });

  it('accepts from clients only real days from 1900-01-01 to 2199-12-31', () => {
    for (const date of ['1900-01-01', '2024-02-29', '2000-02-29', '2199-12-31']) expect([date, isAcceptedIsoDate(date)]).toEqual([date, true]);
    for (const date of ['0000-01-01', '1899-12-31', '2200-01-01', '2025-02-30', '1900-02-29', '2023-02-29', '9999-12-31', '2025-13-01', '2025-00-10', '2025-01-00', '2025-01-01T00:00:00Z', '+275760-09-13', ' 2025-01-01', '２０２５-01-01', '']) {
      expect([date, isAcceptedIsoDate(date)]).toEqual([date, false]);
    }
    expect(isAcceptedIsoDate(20250101)).toBe(false);
    expect(isAcceptedIsoDate(null)).toBe(false);
  });

  it('knows weekdays and moves weekend days to the next or previous business day', () => {
    expect(weekday(parseIsoDate('2026-11-21'))).toBe(6);
    expect(weekday(parseIsoDate('1969-12-28'))).toBe(0); // before day 0 too
    expect([isWeekend(parseIsoDate('2026-11-22')), isWeekend(parseIsoDate('2026-11-23'))]).toEqual([true, false]);
    expect(formatIsoDate(nextBusinessDay(parseIsoDate('2026-11-21')))).toBe('2026-11-23');
    expect(formatIsoDate(previousBusinessDay(parseIsoDate('2026-11-22')))).toBe('2026-11-20');
    expect(formatIsoDate(nextBusinessDay(parseIsoDate('2026-11-20')))).toBe('2026-11-20');
  });

  it('steps months and clamps a day of the month to the end of a short month', () => {
    expect(formatIsoDate(addMonths(parseIsoDate('2024-01-31'), 1))).toBe('2024-02-29');
    expect(formatIsoDate(addMonths(parseIsoDate('2026-11-30'), 3))).toBe('2027-02-28');
    expect(formatIsoDate(addMonths(parseIsoDate('2026-11-20'), -24))).toBe('2024-11-20');
    expect(formatIsoDate(clampedDayOfMonth(2025, 4, 31))).toBe('2025-04-30');
    expect(formatIsoDate(clampedDayOfMonth(2025, 4, 15))).toBe('2025-04-15');
    expect(formatIsoDate(anchoredDay(2026 * 12 + 1, 31))).toBe('2026-02-28');
    expect(formatIsoDate(anchoredDay(2028 * 12 + 1, 30))).toBe('2028-02-29');
    expect(monthIndexOf(civilFromDay(parseIsoDate('2027-01-05'))) - monthIndexOf(civilFromDay(parseIsoDate('2026-12-31')))).toBe(1);
  });

  it('formats a range of days from a table, and days outside it as usual', () => {
    const first = parseIsoDate('2026-01-01');
    const isoDate = isoDateTable(first, first + 9);
    expect([isoDate(first), isoDate(first + 9), isoDate(first + 10), isoDate(first - 1)]).toEqual(['2026-01-01', '2026-01-10', '2026-01-11', '2025-12-31']);
  });
});
