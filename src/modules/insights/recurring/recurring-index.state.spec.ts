import { detectRecurringStreams, listRecurringStreams } from './detect-recurring-streams.js';
import { EMPTY_RECURRING_INDEX, addTransactions, indexedTransaction, removeTransactions } from './recurring-index.state.js';
import { CARD, SAVINGS, everyNDays, monthlyOn, series } from './recurring-history.test-support.js';

const asOf = '2026-11-20';

const history = [
  ...series({ idPrefix: 'nf', dates: monthlyOn('2025-12-05', 5, 12), amounts: '-15.49', name: 'Netflix', merchantName: 'Netflix', accountId: CARD }),
  ...series({ idPrefix: 'pay', dates: everyNDays('2026-01-02', 14, 23), amounts: '2150', name: 'ACME PAYROLL', categorySystemKey: 'INCOME_WAGES' }),
  ...series({ idPrefix: 'ccpay', dates: monthlyOn('2026-01-25', 25, 10), amounts: '-310.5', name: 'CARD AUTOPAY' }),
  ...series({ idPrefix: 'ccrcv', dates: monthlyOn('2026-01-25', 25, 10), amounts: '310.5', name: 'PAYMENT THANK YOU', accountId: CARD }),
  ...series({ idPrefix: 'int', dates: monthlyOn('2025-12-31', 31, 11), amounts: '1.02', name: 'INTEREST PAYMENT', accountId: SAVINGS }),
];

describe('RecurringIndex', () => {
  it('gives the same streams fed in batches as in one full run', () => {
    const full = detectRecurringStreams(history, { asOf });
    const byDate = [...history].sort((a, b) => a.date.localeCompare(b.date));
    let index = EMPTY_RECURRING_INDEX;
    for (let start = 0; start < byDate.length; start += 7) index = addTransactions(index, byDate.slice(start, start + 7));

    expect(full.length).toBe(3);
    expect(listRecurringStreams(index, { asOf })).toEqual(full);
  });

  it('re-classifies only the payee groups a batch touches', () => {
    const before = addTransactions(EMPTY_RECURRING_INDEX, history.slice(0, -1));
    const after = addTransactions(before, history.slice(-1));
    const netflixGroup = [...before.streamsByGroup.keys()].find((key) => key.includes('netflix')) as string;

    expect(after.streamsByGroup.get(netflixGroup)).toBe(before.streamsByGroup.get(netflixGroup));
  });

  it('pairs a transfer when its other half arrives later, and unpairs it when that half is removed', () => {
    const debits = history.filter((t) => t.id.startsWith('ccpay'));
    const credits = history.filter((t) => t.id.startsWith('ccrcv'));
    const halfOnly = addTransactions(EMPTY_RECURRING_INDEX, debits);
    const paired = addTransactions(halfOnly, credits);

    expect(listRecurringStreams(halfOnly, { asOf })).toMatchObject([{ transactionIds: debits.map((t) => t.id) }]);
    expect(listRecurringStreams(paired, { asOf })).toEqual([]);
    expect(listRecurringStreams(removeTransactions(paired, credits.map((t) => t.id)), { asOf })).toEqual(listRecurringStreams(halfOnly, { asOf }));
  });

  it('is idempotent: adding the same transactions again changes nothing', () => {
    const once = addTransactions(EMPTY_RECURRING_INDEX, history);
    const twice = addTransactions(once, history);

    expect(listRecurringStreams(twice, { asOf })).toEqual(listRecurringStreams(once, { asOf }));
  });

  it('replaces a transaction sent again under its id (an edited amount or date)', () => {
    const index = addTransactions(EMPTY_RECURRING_INDEX, history);
    const last = history.find((t) => t.id === 'nf-012');
    const edited = addTransactions(index, [{ ...last!, amount: '-17.99' }]);

    expect(listRecurringStreams(edited, { asOf }).find((s) => s.accountId === CARD)).toMatchObject({ lastAmount: '-17.99', transactionIds: expect.arrayContaining(['nf-012']) });
  });

  it('keeps a stream’s id as its history grows', () => {
    const ids = (count: number) => detectRecurringStreams(history.slice(0, count), { asOf }).filter((s) => s.merchantName === 'Netflix').map((s) => s.id);

    expect(ids(2)).toHaveLength(1);
    expect(ids(6)).toEqual(ids(2));
    expect(ids(12)).toEqual(ids(2));
  });

  it('does not change the index it was given', () => {
    const index = addTransactions(EMPTY_RECURRING_INDEX, history.slice(0, 5));
    const snapshot = listRecurringStreams(index, { asOf });
    addTransactions(index, history.slice(5));
    removeTransactions(index, ['nf-001']);

    expect(listRecurringStreams(index, { asOf })).toEqual(snapshot);
    expect(indexedTransaction(index, 'nf-001')).toBeDefined();
    expect(indexedTransaction(index, 'nf-006')).toBeUndefined();
  });
});
