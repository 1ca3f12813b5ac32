import { calendarDayIn, canonicalTimeZone } from './time-zone.js';

describe('time zones', () => {
  it('accepts IANA names in their canonical spelling and refuses anything else', () => {
    expect(canonicalTimeZone('UTC')).toBe('UTC');
    expect(canonicalTimeZone('Europe/Lisbon')).toBe('Europe/Lisbon');
    expect(canonicalTimeZone('america/new_york')).toBe('America/New_York');
    expect(canonicalTimeZone('US/Eastern')).toBe('America/New_York');
    for (const name of ['', 'Mars/Olympus_Mons', '+05:00', 'UTC+1', ' UTC', 'Europe/Lisbon\u0000', 'x'.repeat(100)]) expect([name, canonicalTimeZone(name)]).toEqual([name, null]);
  });

  it('gives the calendar day at an instant in a zone, which is not always the UTC day', () => {
    const instant = new Date('2026-03-08T03:30:00.000Z');
    expect(calendarDayIn('UTC', instant)).toBe('2026-03-08');
    expect(calendarDayIn('America/Los_Angeles', instant)).toBe('2026-03-07');
    expect(calendarDayIn('Pacific/Kiritimati', new Date('2026-12-31T10:00:00.000Z'))).toBe('2027-01-01');
  });
});
