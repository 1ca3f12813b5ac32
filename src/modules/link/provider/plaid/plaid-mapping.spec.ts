import type { AccountBase, TransactionsSyncResponse } from 'plaid';
import { fixture } from '../../../../../test/support/recorded-api-server.js';
import { categorySystemKeyOf, linkAccountOf, providerTransactionOf } from './plaid-mapping.js';

const documented = fixture<TransactionsSyncResponse>('plaid/transactions-sync-documented-example.json');
const recordedAccounts = fixture<{ accounts: AccountBase[] }>('plaid/accounts-get.json').accounts;

describe("Plaid's objects in the port's terms", () => {
  it('maps the documented /transactions/sync example: money out negative, its category, merchant, dates, pending link, counterparties and place', () => {
    expect(providerTransactionOf(documented.added[0]!)).toEqual({
      transactionId: 'lPNjeW1nR6CDn5okmGQ6hEpMo4lLNoSrzqDje',
      accountId: 'BxBXxLj1m4HMXBm9WZZmCWVbPjX16EHwv99vp',
      amount: '-72.1',
      isoCurrencyCode: 'USD',
      date: '2023-09-24',
      authorizedDate: '2023-09-22',
      name: 'PURCHASE WM SUPERCENTER #1700',
      merchantName: 'Walmart',
      categorySystemKey: 'GENERAL_MERCHANDISE_SUPERSTORES',
      paymentChannel: 'in store',
      pending: false,
      pendingTransactionId: 'no86Eox18VHMvaOVL7gPUM9ap3aR1LsAVZ5nc',
      counterparties: [{ name: 'Walmart', type: 'merchant', logo_url: 'https://plaid-merchant-logos.plaid.com/walmart_1100.png', website: 'walmart.com', entity_id: 'O5W5j4dN9OR3E6ypQmjdkWZZRoXEzVMz2ByWM', confidence_level: 'VERY_HIGH' }],
      location: { address: '13425 Community Rd', city: 'Poway', country: 'US', postal_code: '92064', region: 'CA', store_number: '1700', lat: 32.959068, lon: -117.037666 },
      logoUrl: 'https://plaid-merchant-logos.plaid.com/walmart_1100.png',
      website: 'walmart.com',
    });
    expect(providerTransactionOf(documented.modified[0]!)).toMatchObject({ amount: '-28.34', pending: true, pendingTransactionId: null, paymentChannel: 'online', categorySystemKey: 'FOOD_AND_DRINK_FAST_FOOD', merchantName: 'Burger King' });
  });

  it('signs money in positive: a paycheck, a refund and interest are negative amounts at Plaid', () => {
    const base = documented.added[0]!;
    expect(providerTransactionOf({ ...base, amount: -2500 }).amount).toBe('2500');
    expect(providerTransactionOf({ ...base, amount: -0.05 }).amount).toBe('0.05');
    expect(providerTransactionOf({ ...base, amount: 0 }).amount).toBe('0');
    expect(providerTransactionOf({ ...base, amount: 12.345678 }).amount).toBe('-12.3457');
  });

  it('keeps a detailed category the taxonomy has, else its group’s catch-all, else none', () => {
    expect(categorySystemKeyOf({ primary: 'INCOME', detailed: 'INCOME_WAGES' })).toBe('INCOME_WAGES');
    expect(categorySystemKeyOf({ primary: 'GENERAL_MERCHANDISE', detailed: 'GENERAL_MERCHANDISE_TOBACCO_AND_VAPE' })).toBe('GENERAL_MERCHANDISE_OTHER_GENERAL_MERCHANDISE');
    expect(categorySystemKeyOf({ primary: 'LOAN_PAYMENTS', detailed: 'LOAN_PAYMENTS_BNPL' })).toBe('LOAN_PAYMENTS_OTHER_PAYMENT');
    expect(categorySystemKeyOf({ primary: 'SOMETHING_NEW', detailed: 'SOMETHING_NEW_ENTIRELY' })).toBeNull();
    expect(categorySystemKeyOf(null)).toBeNull();
  });

  it('drops a counterparty of a type the port does not know and a confidence it does not know', () => {
    const base = documented.added[0]!;
    const counterparties = [
      { name: 'Walmart', type: 'merchant', logo_url: null, website: null, entity_id: null, confidence_level: 'SOMEWHAT' },
      { name: 'Mystery', type: 'alien' as 'merchant', logo_url: null, website: null },
    ];
    expect(providerTransactionOf({ ...base, counterparties: counterparties as typeof base.counterparties }).counterparties).toEqual([{ name: 'Walmart', type: 'merchant', logo_url: null, website: null, entity_id: null, confidence_level: null }]);
  });

  it('signs what a credit card or a loan owes negative and keeps the rest as Plaid has it', () => {
    expect(recordedAccounts.map(linkAccountOf)).toEqual([
      { linkAccountId: 'BxBXxLj1m4HMXBm9WZZmCWVbPjX16EHwv99vp', name: 'Plaid Checking', officialName: 'Plaid Gold Standard 0% Interest Checking', mask: '0000', type: 'depository', subtype: 'checking', currency: 'USD', balances: { current: '2283.47', available: '2211.37', limit: null } },
      { linkAccountId: 'dVzbVMLjrxTnLjX4G66XUp5GLklm4oiZy88yK', name: 'Plaid Saving', officialName: 'Plaid Silver Standard 0.1% Interest Saving', mask: '1111', type: 'depository', subtype: 'savings', currency: 'USD', balances: { current: '5301.23', available: '5301.23', limit: null } },
      { linkAccountId: '6PdjjRP6LmugpBy5NgQvUqpRXMWxzktg3rwrk', name: 'Plaid Credit Card', officialName: 'Plaid Diamond 12.5% APR Interest Credit Card', mask: '3333', type: 'credit', subtype: 'credit card', currency: 'USD', balances: { current: '-410.13', available: '4589.87', limit: '5000' } },
      { linkAccountId: 'XMBvvyMGQ1UoLbKByoMqH3nXMj84ALSdE5B58', name: 'Plaid Student Loan', officialName: null, mask: '7777', type: 'loan', subtype: 'student', currency: 'USD', balances: { current: '-65262', available: null, limit: null } },
    ]);
    const brokerage = { ...recordedAccounts[0]!, type: 'brokerage', subtype: null } as unknown as AccountBase;
    expect(linkAccountOf(brokerage)).toMatchObject({ type: 'investment', subtype: null, balances: { current: '2283.47' } });
  });
});
