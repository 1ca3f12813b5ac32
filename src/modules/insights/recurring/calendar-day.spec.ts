import { anchoredDay, parseIsoDate, formatIsoDate } from './calendar-day.js';
import { fromUnits, toUnits } from './decimal-units.js';

describe('calendar days', () => {
  it('round-trips every date from 1999 to 2101, across leap years', () => {
    const first = parseIsoDate('1999-01-01');
    const last = parseIsoDate('2101-12-31');
    for (let day = first; day <= last; day += 1) expect(parseIsoDate(formatIsoDate(day))).toBe(day);
    expect(last - first + 1).toBe(103 * 365 + 25); // 2000 is a leap year, 2100 is not
    expect(parseIsoDate('1970-01-01')).toBe(0);
  });

  it('rejects what is not a calendar date', () => {
    expect(() => parseIsoDate('2026-02-29')).toThrow(RangeError);
    expect(() => parseIsoDate('2026-2-1')).toThrow(RangeError);
  });

  it('clamps a monthly anchor to the end of a short month', () => {
    expect(formatIsoDate(anchoredDay(2026 * 12 + 1, 31))).toBe('2026-02-28');
    expect(formatIsoDate(anchoredDay(2028 * 12 + 1, 30))).toBe('2028-02-29');
  });
});

describe('decimal units', () => {
  it('reads and writes signed decimal strings exactly', () => {
    expect(toUnits('-15.49')).toBe(-154_900);
    expect(toUnits('2150')).toBe(21_500_000);
    expect(toUnits('0.00005')).toBe(1);
    expect(fromUnits(-154_900)).toBe('-15.49');
    expect(fromUnits(813_630 / 10)).toBe('8.1363');
    expect(fromUnits(-0)).toBe('0');
    expect(() => toUnits('12,50')).toThrow(RangeError);
  });
});
