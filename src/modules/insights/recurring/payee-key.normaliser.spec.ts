import { normalisePayeeName, payeeKeyOf } from './payee-key.normaliser.js';
import { transaction } from './recurring-history.test-support.js';

describe('normalisePayeeName', () => {
  it.each([
    ['NETFLIX.COM 866-579-7172', 'netflix'],
    ['Netflix', 'netflix'],
    ['PAYPAL *NETFLIX', 'netflix'],
    ['SQ *BLUE BOTTLE COFFEE', 'blue bottle coffee'],
    ['TST* Blue Bottle Coffee', 'blue bottle coffee'],
    ['Blue Bottle Coffee #0231', 'blue bottle coffee'],
    ['AMAZON.COM*MK1AB2CD', 'amazon'],
    ['Amazon.com*1234567', 'amazon'],
    ['WALGREENS #12345', 'walgreens'],
    ["TRADER JOE'S #552 OAKLAND CA", 'trader joes oakland'],
    ['CHEWY.COM 800-672-4399', 'chewy'],
    ['PG&E WEB ONLINE PAYMENT', 'pg e'],
    ['Spotify USA Inc.', 'spotify usa'],
  ])('%s → %s', (raw, key) => {
    expect(normalisePayeeName(raw)).toBe(key);
  });
});

describe('payeeKeyOf', () => {
  const base = { id: 't', date: '2026-01-01', amount: '-1', name: 'ACH DEBIT 0042 ACME' };

  it('prefers the merchant name, then a payee counterparty, then the raw name', () => {
    expect(payeeKeyOf(transaction({ ...base, merchantName: 'Acme Water' }))).toBe('acme water');
    expect(payeeKeyOf(transaction({ ...base, counterparties: [{ name: 'Square', type: 'payment_terminal' }, { name: 'Acme Water Co', type: 'merchant' }] }))).toBe('acme water');
    expect(payeeKeyOf(transaction(base))).toBe('acme');
  });

  it('names a bank product by the bank and the category, whatever the statement says', () => {
    const bank = [{ name: 'Northstar Savings Bank', type: 'financial_institution' }];
    const loan = { ...base, counterparties: bank, categorySystemKey: 'LOAN_PAYMENTS_CAR_PAYMENT' };

    expect(payeeKeyOf(transaction({ ...loan, name: 'NORTHSTAR SAVINGS BANK AUTO LOAN PMT' }))).toBe(payeeKeyOf(transaction({ ...loan, name: 'AUTO LOAN PAYMENT' })));
    expect(payeeKeyOf(transaction({ ...loan, categorySystemKey: 'INCOME_INTEREST_EARNED' }))).not.toBe(payeeKeyOf(transaction(loan)));
  });
});
