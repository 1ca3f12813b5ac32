import { detectRecurringStreams } from './detect-recurring-streams.js';
import { CHECKING, everyNDays, monthlyOn, series } from './recurring-history.test-support.js';

const asOf = '2026-11-20';

describe('detectRecurringStreams: cadences', () => {
  it('finds a monthly subscription with its amounts, dates and next date', () => {
    const history = series({ idPrefix: 'nf', dates: monthlyOn('2025-12-05', 5, 12), amounts: '-15.49', name: 'Netflix', merchantName: 'Netflix', categorySystemKey: 'ENTERTAINMENT_TV_AND_MOVIES' });

    const [stream, ...others] = detectRecurringStreams(history, { asOf });

    expect(others).toEqual([]);
    expect(stream).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      accountId: CHECKING,
      streamType: 'outflow',
      frequency: 'MONTHLY',
      status: 'MATURE',
      isActive: true,
      averageAmount: '-15.49',
      lastAmount: '-15.49',
      firstDate: '2025-12-05',
      lastDate: '2026-11-05',
      predictedNextDate: '2026-12-05',
      transactionIds: history.map((transaction) => transaction.id),
      merchantName: 'Netflix',
      description: 'Netflix',
      category: 'ENTERTAINMENT_TV_AND_MOVIES',
    });
  });

  it('finds a weekly payment', () => {
    const history = series({ idPrefix: 'w', dates: everyNDays('2026-08-03', 7, 16), amounts: '-25', name: 'Weekly Veg Box' });

    expect(detectRecurringStreams(history, { asOf })).toMatchObject([{ frequency: 'WEEKLY', status: 'MATURE', predictedNextDate: '2026-11-23' }]);
  });

  it('finds a biweekly paycheck as an inflow', () => {
    const history = series({ idPrefix: 'pay', dates: everyNDays('2026-01-02', 14, 23), amounts: '2150.00', name: 'ACME CORP PAYROLL', categorySystemKey: 'INCOME_WAGES' });

    expect(detectRecurringStreams(history, { asOf })).toMatchObject([
      { frequency: 'BIWEEKLY', streamType: 'inflow', status: 'MATURE', averageAmount: '2150', predictedNextDate: '2026-11-20' },
    ]);
  });

  it('tells the 1st and 15th (semi-monthly) from every other week', () => {
    const dates = monthlyOn('2026-03-01', 1, 9).flatMap((first) => [first, first.slice(0, 8) + '15']);
    const history = series({ idPrefix: 'sm', dates, amounts: '1800', name: 'State Payroll' });

    expect(detectRecurringStreams(history, { asOf })).toMatchObject([{ frequency: 'SEMI_MONTHLY', predictedNextDate: '2026-12-01' }]);
  });

  it('tells the 15th and the last day of the month (semi-monthly) apart too', () => {
    const dates = monthlyOn('2026-02-15', 15, 9).flatMap((fifteenth) => [fifteenth, monthlyOn(fifteenth, 31, 1)[0] as string]);
    const history = series({ idPrefix: 'sm', dates, amounts: '1800', name: 'County Payroll' });

    expect(detectRecurringStreams(history, { asOf })).toMatchObject([{ frequency: 'SEMI_MONTHLY', transactionIds: history.map((t) => t.id) }]);
  });

  it('finds an annual renewal, mature after two years', () => {
    const history = series({ idPrefix: 'pr', dates: ['2024-12-02', '2025-12-01'], amounts: ['-139.00', '-139.00'], name: 'Amazon Prime' });

    expect(detectRecurringStreams(history, { asOf })).toMatchObject([
      { frequency: 'ANNUALLY', status: 'MATURE', isActive: true, predictedNextDate: '2026-12-01' },
    ]);
  });

  it('keeps inflows and outflows, and different accounts, apart', () => {
    const dates = monthlyOn('2026-01-10', 10, 10);
    const history = [
      ...series({ idPrefix: 'out', dates, amounts: '-40', name: 'Gym Co' }),
      ...series({ idPrefix: 'in', dates: monthlyOn('2026-01-20', 20, 10), amounts: '12', name: 'Gym Co' }),
      ...series({ idPrefix: 'card', dates, amounts: '-9.99', name: 'Gym Co', accountId: 'acc-card' }),
    ];

    const streams = detectRecurringStreams(history, { asOf });

    expect(streams.map((stream) => [stream.accountId, stream.streamType])).toEqual([
      ['acc-card', 'outflow'],
      [CHECKING, 'inflow'],
      [CHECKING, 'outflow'],
    ]);
    expect(new Set(streams.map((stream) => stream.id)).size).toBe(3);
  });
});

describe('detectRecurringStreams: status', () => {
  const rent = (count: number) => series({ idPrefix: 'rent', dates: monthlyOn('2026-01-01', 1, count), amounts: '-1650', name: 'Oak Street Apartments' });

  it('is EARLY_DETECTION after two occurrences and MATURE from the third', () => {
    expect(detectRecurringStreams(rent(2), { asOf: '2026-02-10' })).toMatchObject([{ status: 'EARLY_DETECTION', isActive: true }]);
    expect(detectRecurringStreams(rent(3), { asOf: '2026-03-10' })).toMatchObject([{ status: 'MATURE', isActive: true }]);
  });

  it('is TOMBSTONED once the next expected date has passed by more than its grace', () => {
    const history = rent(6); // last on 2026-06-01, next expected 2026-07-01

    expect(detectRecurringStreams(history, { asOf: '2026-07-15' })).toMatchObject([{ status: 'MATURE', isActive: true, predictedNextDate: '2026-07-01' }]);
    expect(detectRecurringStreams(history, { asOf: '2026-07-16' })).toMatchObject([{ status: 'TOMBSTONED', isActive: false, predictedNextDate: null }]);
  });

  it('does not depend on asOf for which transactions form a stream', () => {
    const history = rent(6);
    const ids = (date: string) => detectRecurringStreams(history, { asOf: date }).map((stream) => [stream.id, stream.transactionIds]);

    expect(ids('2026-06-02')).toEqual(ids('2027-06-02'));
  });
});
