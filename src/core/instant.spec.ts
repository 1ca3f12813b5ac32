import { parseInstant } from './instant.js';

describe('an ISO 8601 instant', () => {
  it('reads a UTC or offset timestamp to the millisecond', () => {
    expect(parseInstant('2026-11-20T12:00:00Z')?.toISOString()).toBe('2026-11-20T12:00:00.000Z');
    expect(parseInstant('2026-11-20T12:00Z')?.toISOString()).toBe('2026-11-20T12:00:00.000Z');
    expect(parseInstant('2026-11-20T13:00:00.25+01:00')?.toISOString()).toBe('2026-11-20T12:00:00.250Z');
    expect(parseInstant('2026-11-20T07:30:00.123456789-04:30')?.toISOString()).toBe('2026-11-20T12:00:00.123Z');
    expect(parseInstant('2026-01-01T00:30:00+01:00')?.toISOString()).toBe('2025-12-31T23:30:00.000Z');
  });

  it('refuses a time without its offset, a day or time that does not exist, and anything else', () => {
    for (const text of ['2026-11-20T12:00:00', '2026-11-20', '2026-02-30T00:00:00Z', '2026-11-20T24:00:00Z', '2026-11-20T12:60:00Z', '2026-11-20T12:00:60Z', '2026-11-20T12:00:00+25:00', '1899-12-31T23:59:59Z', '2200-01-01T00:00:00Z', '2026-11-20 12:00:00Z', 'now', '', '1700000000000', ' 2026-11-20T12:00:00Z', '2026-11-20t12:00:00z']) {
      expect([text, parseInstant(text)]).toEqual([text, null]);
    }
    expect(parseInstant(['2026-11-20T12:00:00Z'])).toBeNull();
    expect(parseInstant(undefined)).toBeNull();
  });
});
