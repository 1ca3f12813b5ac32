import { parseIsoDate } from '../../../core/calendar-day.js';
import { spendingSeries, toUnits } from './spending-series.js';
import { spendingWindow } from './spending-window.js';

describe('spending series', () => {
  const week = spendingWindow('1w', parseIsoDate('2026-11-22'), null);

  it('has every bucket, 0 where nothing was spent, and sums nets into their buckets', () => {
    const series = spendingSeries(week, [
      { day: '2026-11-16', net: '10.2500' },
      { day: '2026-11-16', net: '0.0001' },
      { day: '2026-11-20', net: '4.0000' },
    ]);
    expect(series.spending).toEqual([
      { date: '2026-11-16', amount: 10.2501 }, { date: '2026-11-17', amount: 0 }, { date: '2026-11-18', amount: 0 }, { date: '2026-11-19', amount: 0 },
      { date: '2026-11-20', amount: 4 }, { date: '2026-11-21', amount: 0 }, { date: '2026-11-22', amount: 0 },
    ]);
    expect([series.averageLabel, series.totalSpending, series.averageSpending]).toEqual(['daily', 14.2501, 2.0357]);
  });

  it('nets refunds within a bucket and shows a bucket where refunds outweigh spending as 0, never negative', () => {
    const series = spendingSeries(week, [
      { day: '2026-11-17', net: '30' },
      { day: '2026-11-17', net: '-12.5' },
      { day: '2026-11-18', net: '-40' },
    ]);
    expect(series.spending.slice(1, 3)).toEqual([{ date: '2026-11-17', amount: 17.5 }, { date: '2026-11-18', amount: 0 }]);
    expect(series.totalSpending).toBe(17.5);
  });

  it('rounds the average half-even to 4 decimals', () => {
    const twoDays = { start: parseIsoDate('2026-11-21'), end: parseIsoDate('2026-11-22'), bucketSize: 'day' as const };
    expect(spendingSeries(twoDays, [{ day: '2026-11-21', net: '1.0001' }]).averageSpending).toBe(0.5);
    expect(spendingSeries(twoDays, [{ day: '2026-11-21', net: '1.0003' }]).averageSpending).toBe(0.5002);
  });

  it('ignores days outside the window and keeps sums exact beyond 2^53 ten-thousandths', () => {
    const series = spendingSeries(week, [{ day: '2026-11-23', net: '5' }, { day: '2026-11-22', net: '999999999999999.9999' }, { day: '2026-11-21', net: '0.0001' }]);
    expect(series.totalSpending).toBe(1e15);
    expect(toUnits('-0.5')).toBe(-5000n);
    expect(toUnits('12.3400')).toBe(123400n);
  });
});
