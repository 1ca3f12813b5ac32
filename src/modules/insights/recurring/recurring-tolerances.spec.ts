import { detectRecurringStreams } from './detect-recurring-streams.js';
import {
  CARD,
  SAVINGS,
  addDays,
  everyNDays,
  monthlyOn,
  nextBusinessDay,
  seededRandom,
  series,
  transaction,
} from './recurring-history.test-support.js';

const asOf = '2026-11-20';

describe('recurring detection tolerates', () => {
  it('one payee under different statement names', () => {
    const names = ['NETFLIX.COM 866-579-7172', 'Netflix', 'PAYPAL *NETFLIX', 'NETFLIX.COM #4412 CA', 'Netflix Inc.'];
    const history = monthlyOn('2026-01-07', 7, 10).map((date, position) =>
      transaction({ id: `nf-${position}`, date, amount: '-15.49', name: names[position % names.length] as string, merchantName: position % 2 === 0 ? null : 'Netflix' }),
    );

    expect(detectRecurringStreams(history, { asOf })).toMatchObject([{ frequency: 'MONTHLY', transactionIds: history.map((t) => t.id) }]);
  });

  it('processor prefixes in front of a merchant', () => {
    const names = ['SQ *BLUE BOTTLE COFFEE', 'TST* Blue Bottle Coffee', 'Blue Bottle Coffee #0231'];
    const history = everyNDays('2026-06-01', 7, 20).map((date, position) =>
      transaction({ id: `bb-${position}`, date, amount: '-30', name: names[position % 3] as string }),
    );

    expect(detectRecurringStreams(history, { asOf })).toMatchObject([{ frequency: 'WEEKLY', transactionIds: history.map((t) => t.id) }]);
  });

  it('dates moved by weekends and holidays, and still predicts the scheduled day', () => {
    const shifts = [0, 2, -1, 3, 0, -3, 1, 0, 2, -2, 0, 1];
    const dates = monthlyOn('2025-12-01', 1, 12).map((date, position) => addDays(date, shifts[position] as number));
    const history = series({ idPrefix: 'rent', dates, amounts: '-1650', name: 'Oak Street Apartments' });

    expect(detectRecurringStreams(history, { asOf })).toMatchObject([
      { frequency: 'MONTHLY', status: 'MATURE', transactionIds: history.map((t) => t.id), predictedNextDate: '2026-12-01' },
    ]);
  });

  it('bills that post on the next business day', () => {
    const history = series({ idPrefix: 'ins', dates: monthlyOn('2025-11-28', 28, 12).map(nextBusinessDay), amounts: '-96.20', name: 'Lemonade Insurance' });

    expect(detectRecurringStreams(history, { asOf })).toMatchObject([{ frequency: 'MONTHLY', transactionIds: history.map((t) => t.id) }]);
  });

  it('utility amounts that vary by up to 30%', () => {
    const amounts = ['-82.10', '-104.33', '-61.90', '-77.00', '-99.87', '-58.12', '-88.40', '-71.05', '-106.66', '-64.20'];
    const history = series({ idPrefix: 'pge', dates: monthlyOn('2026-01-18', 18, 10), amounts, name: 'PG&E WEB ONLINE PAYMENT', categorySystemKey: 'RENT_AND_UTILITIES_GAS_AND_ELECTRICITY' });

    expect(detectRecurringStreams(history, { asOf })).toMatchObject([{ frequency: 'MONTHLY', averageAmount: '-81.363', lastAmount: '-64.2' }]);
  });

  it('a price change mid-stream: one stream, and the same id as before the change', () => {
    const dates = monthlyOn('2025-11-12', 12, 12);
    const amounts = dates.map((_, position) => (position < 6 ? '-15.49' : '-17.99'));
    const history = series({ idPrefix: 'sp', dates, amounts, name: 'Spotify USA', merchantName: 'Spotify' });

    const [before] = detectRecurringStreams(history.slice(0, 6), { asOf: '2026-05-20' });
    const after = detectRecurringStreams(history, { asOf });

    expect(after).toMatchObject([{ id: before?.id, transactionIds: history.map((t) => t.id), lastAmount: '-17.99', averageAmount: '-16.74' }]);
  });

  it('a skipped month', () => {
    const dates = monthlyOn('2025-12-20', 20, 12).filter((_, position) => position !== 5);
    const history = series({ idPrefix: 'gym', dates, amounts: '-45', name: 'Planet Fitness' });

    expect(detectRecurringStreams(history, { asOf })).toMatchObject([{ frequency: 'MONTHLY', status: 'MATURE', transactionIds: history.map((t) => t.id) }]);
  });

  it('pending copies, which are ignored', () => {
    const posted = series({ idPrefix: 'hulu', dates: monthlyOn('2026-02-03', 3, 10), amounts: '-7.99', name: 'Hulu' });
    const pending = posted.map((t) => ({ ...t, id: `${t.id}-pending`, date: addDays(t.date, -1), pending: true }));

    expect(detectRecurringStreams([...pending, ...posted], { asOf })).toMatchObject([{ transactionIds: posted.map((t) => t.id) }]);
    expect(detectRecurringStreams(pending, { asOf })).toEqual([]);
  });
});

describe('recurring detection reads pending charges', () => {
  it('as the payment that was due, and predicts the one after', () => {
    const posted = series({ idPrefix: 'sp', dates: monthlyOn('2026-01-20', 20, 10), amounts: '-11.99', name: 'Spotify' });
    const pending = transaction({ id: 'sp-pending', date: '2026-11-20', amount: '-11.99', name: 'Spotify', pending: true });

    expect(detectRecurringStreams([...posted, pending], { asOf: '2026-11-20' })).toMatchObject([
      { transactionIds: posted.map((t) => t.id), lastDate: '2026-10-20', predictedNextDate: '2026-12-20' },
    ]);
  });
});

describe('recurring detection ignores', () => {
  it('transfers the provider categorised as transfers', () => {
    const dates = monthlyOn('2026-01-02', 2, 10);
    const history = [
      ...series({ idPrefix: 'out', dates, amounts: '-500', name: 'Online Transfer to SAV ...4321', categorySystemKey: 'TRANSFER_OUT_ACCOUNT_TRANSFER' }),
      ...series({ idPrefix: 'in', dates, amounts: '500', name: 'Online Transfer from CHK ...1234', accountId: SAVINGS, categorySystemKey: 'TRANSFER_IN_ACCOUNT_TRANSFER' }),
    ];

    expect(detectRecurringStreams(history, { asOf })).toEqual([]);
  });

  it('uncategorised opposite amounts on the same day across the user’s accounts', () => {
    const dates = monthlyOn('2026-01-25', 25, 10);
    const history = [
      ...series({ idPrefix: 'pay', dates, amounts: '-1240.17', name: 'AUTOPAY CARD ENDING 9981' }),
      ...series({ idPrefix: 'rcv', dates, amounts: '1240.17', name: 'PAYMENT RECEIVED THANK YOU', accountId: CARD }),
    ];

    expect(detectRecurringStreams(history, { asOf })).toEqual([]);
  });

  it('but keeps a car-loan payment even when the linked loan account shows it arrive', () => {
    const dates = monthlyOn('2026-01-05', 5, 10);
    const bank = [{ name: 'Northstar Bank', type: 'financial_institution' }];
    const history = [
      ...series({ idPrefix: 'loan', dates, amounts: '-412.37', name: 'AUTO LOAN PAYMENT', categorySystemKey: 'LOAN_PAYMENTS_CAR_PAYMENT' }).map((t) => ({ ...t, counterparties: bank })),
      ...series({ idPrefix: 'rcv', dates, amounts: '412.37', name: 'PAYMENT RECEIVED - THANK YOU', accountId: 'acc-loan', categorySystemKey: 'TRANSFER_IN_ACCOUNT_TRANSFER' }),
    ];

    expect(detectRecurringStreams(history, { asOf })).toMatchObject([{ frequency: 'MONTHLY', transactionIds: history.slice(0, 10).map((t) => t.id) }]);
  });

  it('but keeps a paycheck and a rent payment that happen to match', () => {
    const dates = monthlyOn('2026-01-01', 1, 10);
    const history = [
      ...series({ idPrefix: 'pay', dates, amounts: '2000', name: 'ACME PAYROLL', categorySystemKey: 'INCOME_WAGES' }),
      ...series({ idPrefix: 'rent', dates, amounts: '-2000', name: 'Oak Street Apartments', accountId: SAVINGS, categorySystemKey: 'RENT_AND_UTILITIES_RENT' }),
    ];

    expect(detectRecurringStreams(history, { asOf })).toHaveLength(2);
  });

  it('irregular spending at one merchant: a coffee shop three times a week at random', () => {
    const random = seededRandom(7);
    const history = [];
    for (let week = 0; week < 40; week += 1) {
      const days = new Set<number>();
      while (days.size < 3) days.add(Math.floor(random() * 7));
      for (const day of days) {
        const amount = (-(3.5 + Math.floor(random() * 9) * 0.75)).toFixed(2);
        history.push(transaction({ id: `cafe-${week}-${day}`, date: addDays('2026-02-02', week * 7 + day), amount, name: 'SQ *CORNER CAFE', accountId: CARD }));
      }
    }

    expect(detectRecurringStreams(history, { asOf })).toEqual([]);
  });

  it('three visits a week apart amid a merchant’s irregular visits, though alone they would be a stream', () => {
    const irregular = [0, 3, 11, 12, 25, 40, 44, 58, 71, 73, 90, 101].map((offset, position) =>
      transaction({ id: `bistro-${position}`, date: addDays('2026-06-01', offset), amount: (-(18 + ((position * 7) % 23))).toFixed(2), name: 'Corner Bistro' }),
    );
    const weeklyRun = series({ idPrefix: 'run', dates: everyNDays('2026-09-18', 7, 3), amounts: ['-23.10', '-41.80', '-30.05'], name: 'Corner Bistro' });

    expect(detectRecurringStreams([...irregular, ...weeklyRun], { asOf })).toEqual([]);
    expect(detectRecurringStreams(weeklyRun, { asOf: '2026-10-05' })).toMatchObject([{ frequency: 'WEEKLY', status: 'MATURE' }]);
  });

  it('two purchases that only look a month apart when their amounts differ', () => {
    const history = series({ idPrefix: 'shoe', dates: ['2026-09-03', '2026-10-03'], amounts: ['-89.99', '-42.50'], name: 'Foot Locker' });

    expect(detectRecurringStreams(history, { asOf })).toEqual([]);
  });
});

describe('recurring detection separates', () => {
  it('two subscriptions billed by one payee, with different ids', () => {
    const history = [
      ...series({ idPrefix: 'icloud', dates: monthlyOn('2026-01-04', 4, 10), amounts: '-2.99', name: 'APPLE.COM/BILL' }),
      ...series({ idPrefix: 'tv', dates: monthlyOn('2026-01-19', 19, 10), amounts: '-9.99', name: 'APPLE.COM/BILL' }),
    ];

    const streams = detectRecurringStreams(history, { asOf });

    expect(streams.map((stream) => stream.averageAmount).sort()).toEqual(['-2.99', '-9.99']);
    expect(streams[0]?.id).not.toBe(streams[1]?.id);
  });

  it('a subscription from other shopping at the same merchant', () => {
    const random = seededRandom(11);
    const shopping = Array.from({ length: 60 }, (_, position) =>
      transaction({ id: `amzn-${position}`, date: addDays('2026-01-01', Math.floor(random() * 320)), amount: (-(5 + random() * 120)).toFixed(2), name: 'AMZN Mktp US*2K4HX', merchantName: 'Amazon', accountId: CARD }),
    );
    const prime = series({ idPrefix: 'prime', dates: monthlyOn('2026-01-09', 9, 10), amounts: '-14.99', name: 'Amazon Prime*1A2B3', merchantName: 'Amazon', accountId: CARD });

    expect(detectRecurringStreams([...shopping, ...prime], { asOf })).toMatchObject([{ frequency: 'MONTHLY', transactionIds: prime.map((t) => t.id) }]);
  });
});
