import { CATEGORY_GROUP_KEYS, SYSTEM_TAXONOMY } from '../../categories/system-taxonomy.js';
import type { ProviderTransaction } from '../bank-link.port.js';
import { parseIsoDate, weekday } from '../../../core/calendar-day.js';
import { generateSandboxHistory, SANDBOX_INSTITUTIONS, type PlantedStream, type SandboxHistory } from './index.js';

const asOf = '2026-11-20';
const history = generateSandboxHistory({ seed: 42, asOf });
const byId = new Map(history.transactions.map((transaction) => [transaction.transactionId, transaction]));
const categoryKeys = new Set(SYSTEM_TAXONOMY.flatMap((group) => group.categories.map((category) => category.systemKey)));
const toCents = (amount: string): number => Math.round(Number(amount) * 100);
const stream = (key: string): PlantedStream => {
  const found = history.plantedStreams.find((candidate) => candidate.merchantName === key || candidate.description.includes(key));
  if (found === undefined) throw new Error(`no planted stream ${key}`);
  return found;
};
const streamTransactions = (planted: PlantedStream): ProviderTransaction[] => planted.transactionIds.map((id) => byId.get(id)!);
const gaps = (planted: PlantedStream): number[] => {
  const days = streamTransactions(planted).map((transaction) => parseIsoDate(transaction.date));
  return days.slice(1).map((day, index) => day - days[index]!);
};

describe('generateSandboxHistory', () => {
  it('is byte-identical for the same seed and asOf, and differs for another seed or day', () => {
    const again = generateSandboxHistory({ seed: 42, asOf });
    expect(JSON.stringify(again)).toBe(JSON.stringify(history));
    expect(JSON.stringify(generateSandboxHistory({ seed: 43, asOf }))).not.toBe(JSON.stringify(history));
    expect(JSON.stringify(generateSandboxHistory({ seed: 42, asOf: '2026-11-21' }))).not.toBe(JSON.stringify(history));
  });

  it('covers two years ending at asOf, oldest first, with unique ids', () => {
    const dates = history.transactions.map((transaction) => transaction.date);
    expect(dates[0]! >= '2024-11-21').toBe(true);
    expect(dates[dates.length - 1]).toBe(asOf);
    expect([...dates].sort()).toEqual(dates);
    expect(byId.size).toBe(history.transactions.length);
    expect(history.transactions.length).toBeGreaterThan(2000);
  });

  it('gives every account a current balance equal to its opening balance plus its posted transactions', () => {
    expect(history.accounts.map((account) => [account.type, account.subtype])).toEqual([
      ['depository', 'checking'], ['depository', 'savings'], ['credit', 'credit card'], ['loan', 'auto'],
    ]);
    for (const account of history.accounts) {
      const own = history.transactions.filter((transaction) => transaction.accountId === account.linkAccountId);
      const posted = own.filter((transaction) => !transaction.pending).reduce((sum, transaction) => sum + toCents(transaction.amount), 0);
      const pending = own.filter((transaction) => transaction.pending).reduce((sum, transaction) => sum + toCents(transaction.amount), 0);
      expect(toCents(account.balances.current!)).toBe(toCents(account.openingBalance) + posted);
      if (account.type === 'depository') expect(toCents(account.balances.available!)).toBe(toCents(account.balances.current!) + pending);
      if (account.type === 'credit') expect(toCents(account.balances.available!)).toBe(toCents(account.balances.limit!) + toCents(account.balances.current!) + pending);
    }
  });

  it('uses only taxonomy categories, known channels and counterparty types, and signed two-place amounts', () => {
    const types = new Set(['merchant', 'financial_institution', 'payment_app', 'marketplace', 'payment_terminal', 'income_source']);
    for (const transaction of history.transactions) {
      expect(transaction.amount).toMatch(/^-?\d+\.\d{2}$/);
      if (transaction.categorySystemKey !== null) expect(categoryKeys.has(transaction.categorySystemKey)).toBe(true);
      expect(['in store', 'online', 'other']).toContain(transaction.paymentChannel);
      for (const counterparty of transaction.counterparties) expect(types.has(counterparty.type)).toBe(true);
    }
    const groupsUsed = CATEGORY_GROUP_KEYS.filter((group) => history.transactions.some((t) => t.categorySystemKey?.startsWith(`${group}_`)));
    expect(groupsUsed).toEqual(CATEGORY_GROUP_KEYS);
    expect(new Set(history.transactions.flatMap((t) => t.counterparties.map((c) => c.type)))).toEqual(types);
  });

  it('replaces pending transactions with posted ones and keeps only the last few days pending', () => {
    const pending = history.transactions.filter((transaction) => transaction.pending);
    expect(pending.length).toBeGreaterThan(0);
    for (const transaction of pending) expect(parseIsoDate(asOf) - parseIsoDate(transaction.date)).toBeLessThanOrEqual(3);
    const replaced = history.transactions.filter((transaction) => transaction.pendingTransactionId !== null);
    expect(replaced.length).toBeGreaterThan(1000);
    for (const transaction of replaced) {
      expect(byId.has(transaction.pendingTransactionId!)).toBe(false);
      expect(transaction.authorizedDate! <= transaction.date).toBe(true);
    }
  });

  it('plants streams of every frequency, one of them ended months ago', () => {
    expect(new Set(history.plantedStreams.map((planted) => planted.frequency))).toEqual(new Set(['WEEKLY', 'BIWEEKLY', 'SEMI_MONTHLY', 'MONTHLY', 'ANNUALLY']));
    const ended = history.plantedStreams.filter((planted) => !planted.isActive);
    expect(ended.map((planted) => planted.merchantName)).toEqual(['Hulu']);
    expect(parseIsoDate(asOf) - parseIsoDate(ended[0]!.lastDate)).toBeGreaterThan(90);
    for (const planted of history.plantedStreams) {
      const transactions = streamTransactions(planted);
      expect(transactions.every((transaction) => transaction !== undefined && !transaction.pending && transaction.accountId === planted.accountId)).toBe(true);
      expect(transactions[0]!.date).toBe(planted.firstDate);
      expect(transactions[transactions.length - 1]!.date).toBe(planted.lastDate);
      if (planted.isActive) expect(planted.nextDate > asOf).toBe(true);
      expect(Math.sign(Number(planted.averageAmount))).toBe(planted.streamType === 'inflow' ? 1 : -1);
    }
  });

  it('spaces each stream by its frequency, skipping a month now and then', () => {
    const bounds = { WEEKLY: [4, 17], BIWEEKLY: [14, 14], SEMI_MONTHLY: [10, 20], MONTHLY: [24, 65], ANNUALLY: [360, 370] } as const;
    for (const planted of history.plantedStreams) {
      const [min, max] = bounds[planted.frequency];
      for (const gap of gaps(planted)) {
        expect(gap).toBeGreaterThanOrEqual(min);
        expect(gap).toBeLessThanOrEqual(max);
      }
    }
    expect(gaps(stream('Planet Fitness')).some((gap) => gap > 45)).toBe(true);
  });

  it('moves bills and paychecks off weekends', () => {
    const achStreams = history.plantedStreams.filter((planted) => planted.accountId === history.accounts[0]!.linkAccountId);
    expect(achStreams.length).toBeGreaterThanOrEqual(8);
    for (const planted of achStreams) {
      for (const transaction of streamTransactions(planted)) expect([0, 6]).not.toContain(weekday(parseIsoDate(transaction.date)));
    }
  });

  it('varies raw names around one merchant name, changes a price once, and keeps utilities within ±30%', () => {
    const netflix = streamTransactions(stream('Netflix'));
    expect(new Set(netflix.map((transaction) => transaction.merchantName))).toEqual(new Set(['Netflix']));
    expect(new Set(netflix.map((transaction) => transaction.name)).size).toBeGreaterThan(1);
    expect([...new Set(netflix.map((transaction) => transaction.amount))]).toEqual(['-15.49', '-17.99']);
    const power = streamTransactions(stream('Metro Power & Light')).map((transaction) => -Number(transaction.amount));
    expect(Math.max(...power) / Math.min(...power)).toBeLessThanOrEqual(1.3 / 0.7);
    expect(stream('Amazon Prime').frequency).toBe('ANNUALLY');
  });

  it('keeps transfers, refunds and the coffee habit out of the planted streams', () => {
    const planted = new Set(history.plantedStreams.flatMap((candidate) => candidate.transactionIds));
    const excluded = (transaction: ProviderTransaction): boolean =>
      transaction.categorySystemKey?.startsWith('TRANSFER_') === true ||
      transaction.categorySystemKey === 'LOAN_PAYMENTS_CREDIT_CARD_PAYMENT' ||
      transaction.categorySystemKey === 'FOOD_AND_DRINK_COFFEE' ||
      (Number(transaction.amount) > 0 && transaction.categorySystemKey?.startsWith('GENERAL_MERCHANDISE') === true);
    const noise = history.transactions.filter(excluded);
    expect(noise.filter((transaction) => transaction.categorySystemKey === 'FOOD_AND_DRINK_COFFEE').length).toBeGreaterThan(100);
    expect(noise.filter((transaction) => Number(transaction.amount) > 0 && transaction.categorySystemKey?.startsWith('GENERAL_MERCHANDISE')).length).toBeGreaterThan(3);
    expect(history.transactions.some((transaction) => transaction.categorySystemKey?.startsWith('BANK_FEES_'))).toBe(true);
    for (const transaction of noise) expect(planted.has(transaction.transactionId)).toBe(false);
  });

  it('chooses among at least four institutions, honours institutionId and refuses an unknown one', () => {
    expect(SANDBOX_INSTITUTIONS.length).toBeGreaterThanOrEqual(4);
    for (const institution of SANDBOX_INSTITUTIONS) {
      expect(generateSandboxHistory({ seed: 1, asOf, institutionId: institution.id }).institution).toEqual(institution);
    }
    expect(() => generateSandboxHistory({ seed: 1, asOf, institutionId: 'ins_nope' })).toThrow(RangeError);
    expect(() => generateSandboxHistory({ seed: 1, asOf: '2026-02-30' })).toThrow(RangeError);
  });

  it('produces exactly transactionCount transactions, and refuses fewer than the structure needs', () => {
    const sized: SandboxHistory = generateSandboxHistory({ seed: 5, asOf, transactionCount: 5000 });
    expect(sized.transactions).toHaveLength(5000);
    expect(() => generateSandboxHistory({ seed: 5, asOf, transactionCount: 10 })).toThrow(/at least/);
  });

  it('generates 100k transactions (time logged, not asserted)', () => {
    const started = performance.now();
    const large = generateSandboxHistory({ seed: 9, asOf, transactionCount: 100_000 });
    const elapsed = performance.now() - started;
    expect(large.transactions).toHaveLength(100_000);
    console.log(`generateSandboxHistory: 100000 transactions in ${elapsed.toFixed(0)} ms`);
  });
});
