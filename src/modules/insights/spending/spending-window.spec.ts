import { formatIsoDate, parseIsoDate } from '../../../core/calendar-day.js';
import { aggregateSources, bucketStarts, type SpendingPeriod, spendingWindow } from './spending-window.js';

const dates = (days: number[]) => days.map(formatIsoDate);
const windowOf = (period: SpendingPeriod, today: string, first: string | null = null) => spendingWindow(period, parseIsoDate(today), first === null ? null : parseIsoDate(first));
const describeWindow = (period: SpendingPeriod, today: string, first: string | null = null) => {
  const window = windowOf(period, today, first);
  return { start: formatIsoDate(window.start), end: formatIsoDate(window.end), bucketSize: window.bucketSize, buckets: dates(bucketStarts(window)) };
};

describe('spending windows', () => {
  it('1w is the last 7 days including today, one bucket a day', () => {
    expect(describeWindow('1w', '2026-11-22')).toEqual({
      start: '2026-11-16', end: '2026-11-22', bucketSize: 'day',
      buckets: ['2026-11-16', '2026-11-17', '2026-11-18', '2026-11-19', '2026-11-20', '2026-11-21', '2026-11-22'],
    });
  });

  it('1m is 30 days by day, across a month end', () => {
    const window = describeWindow('1m', '2026-03-01');
    expect([window.start, window.buckets.length, window.buckets.slice(-3)]).toEqual(['2026-01-31', 30, ['2026-02-27', '2026-02-28', '2026-03-01']]);
  });

  it('3m and 6m are 91 and 182 days in ISO weeks; the first bucket starts with the window, the others on Mondays', () => {
    const quarter = describeWindow('3m', '2026-11-25'); // a Wednesday
    expect(quarter.start).toBe('2026-08-27'); // a Thursday
    expect(quarter.buckets.slice(0, 3)).toEqual(['2026-08-27', '2026-08-31', '2026-09-07']);
    expect(quarter.buckets.at(-1)).toBe('2026-11-23');
    expect(quarter.buckets).toHaveLength(14);
    const aligned = describeWindow('3m', '2026-11-22'); // a Sunday: 13 whole weeks
    expect([aligned.start, aligned.buckets.length]).toEqual(['2026-08-24', 13]);
    const half = describeWindow('6m', '2026-01-04');
    expect([half.start, half.buckets[0], half.buckets[1], half.buckets.at(-1)]).toEqual(['2025-07-07', '2025-07-07', '2025-07-14', '2025-12-29']);
    expect(half.buckets).toHaveLength(26);
  });

  it('1y is 365 days in calendar months, the first one partial, across a leap day', () => {
    const year = describeWindow('1y', '2026-11-25');
    expect(year.buckets).toEqual(['2025-11-26', '2025-12-01', '2026-01-01', '2026-02-01', '2026-03-01', '2026-04-01', '2026-05-01', '2026-06-01', '2026-07-01', '2026-08-01', '2026-09-01', '2026-10-01', '2026-11-01']);
    expect(describeWindow('1y', '2024-03-01').start).toBe('2023-03-03');
  });

  it('ytd runs from the first of January, all from the first transaction (today alone without one)', () => {
    expect(describeWindow('ytd', '2026-03-15').buckets).toEqual(['2026-01-01', '2026-02-01', '2026-03-01']);
    expect(describeWindow('ytd', '2027-01-01').buckets).toEqual(['2027-01-01']);
    expect(describeWindow('all', '2024-04-10', '2024-02-29').buckets).toEqual(['2024-02-29', '2024-03-01', '2024-04-01']);
    expect(describeWindow('all', '2024-04-10')).toMatchObject({ start: '2024-04-10', buckets: ['2024-04-10'] });
    expect(describeWindow('all', '2024-04-10', '2024-05-01')).toMatchObject({ start: '2024-04-10', buckets: ['2024-04-10'] });
  });

  it('reads whole months inside the window from the monthly table, the edges and the current month by day', () => {
    const sources = (period: SpendingPeriod, today: string, first: string | null = null) => {
      const { months, days } = aggregateSources(windowOf(period, today, first));
      return { months: months && [formatIsoDate(months.from), formatIsoDate(months.to)], days: days.map((range) => [formatIsoDate(range.from), formatIsoDate(range.to)]) };
    };
    expect(sources('1y', '2026-11-25')).toEqual({ months: ['2025-12-01', '2026-11-01'], days: [['2025-11-26', '2025-11-30'], ['2026-11-01', '2026-11-25']] });
    expect(sources('ytd', '2026-03-15')).toEqual({ months: ['2026-01-01', '2026-03-01'], days: [['2026-03-01', '2026-03-15']] });
    expect(sources('ytd', '2026-01-20')).toEqual({ months: null, days: [['2026-01-01', '2026-01-20']] });
    expect(sources('all', '2026-03-15', '2026-02-10')).toEqual({ months: null, days: [['2026-02-10', '2026-03-15']] });
    expect(sources('1m', '2026-11-25')).toEqual({ months: null, days: [['2026-10-27', '2026-11-25']] });
  });
});
