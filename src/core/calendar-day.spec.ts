import { formatIsoDate, isAcceptedIsoDate, parseIsoDate } from './calendar-day.js';

describe('calendar day', () => {
  it('round-trips day numbers and refuses days that do not exist', () => {
    expect(formatIsoDate(parseIsoDate('2024-02-29'))).toBe('2024-02-29');
    expect(() => parseIsoDate('2025-02-30')).toThrow(RangeError);
    expect(() => parseIsoDate('2025-1-1')).toThrow(RangeError);
  });

  it('accepts from clients only real days from 1900-01-01 to 2199-12-31', () => {
    for (const date of ['1900-01-01', '2024-02-29', '2000-02-29', '2199-12-31']) expect([date, isAcceptedIsoDate(date)]).toEqual([date, true]);
    for (const date of ['0000-01-01', '1899-12-31', '2200-01-01', '2025-02-30', '1900-02-29', '2023-02-29', '9999-12-31', '2025-13-01', '2025-00-10', '2025-01-00', '2025-01-01T00:00:00Z', '+275760-09-13', ' 2025-01-01', '２０２５-01-01', '']) {
      expect([date, isAcceptedIsoDate(date)]).toEqual([date, false]);
    }
    expect(isAcceptedIsoDate(20250101)).toBe(false);
    expect(isAcceptedIsoDate(null)).toBe(false);
  });
});
