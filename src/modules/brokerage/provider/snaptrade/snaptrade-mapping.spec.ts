import type { Account, AccountPosition, AccountUniversalActivity, Balance, BrokerageAuthorization } from 'snaptrade-typescript-sdk';
import { fixture } from '../../../../../test/support/recorded-api-server.js';
import { multipliedToCents } from './exact-decimal.js';
import { accountOf, accountTypeOf, activityOf, authorizationOf, balanceOf, instantOf, isInvestmentAccount, positionsOf } from './snaptrade-mapping.js';

const accounts = fixture<{ accounts: Account[] }>('snaptrade/accounts.json').accounts.map((account, index) => ({ ...account, id: `account-${index}`, brokerage_authorization: 'connection-1' }));
const positions = fixture<{ byAccount: { results: AccountPosition[] }[] }>('snaptrade/positions-all.json').byAccount;
const activities = fixture<{ byAccount: AccountUniversalActivity[][] }>('snaptrade/activities.json').byAccount;

describe("SnapTrade's objects in the port's terms", () => {
  it('keeps investment accounts only, their type read from the brokerage’s words and their number masked', () => {
    expect(accounts.filter(isInvestmentAccount).map(accountOf)).toEqual([
      { id: 'account-0', authorizationId: 'connection-1', name: 'Alpaca Individual', number: '****3921', institutionName: 'Alpaca', accountType: 'individual', status: 'open', currency: 'USD' },
      { id: 'account-1', authorizationId: 'connection-1', name: 'Alpaca Roth IRA', number: '****7704', institutionName: 'Alpaca', accountType: 'roth_ira', status: 'open', currency: 'USD' },
    ]);
    expect(accountOf({ ...accounts[0]!, name: null, number: 'Q6542138443', status: 'archived' })).toMatchObject({ name: 'Alpaca ****8443', number: '****8443', status: 'closed' });
    expect(['Margin', 'Cash', 'Individual', 'Roth IRA', 'Traditional IRA', 'Rollover IRA', 'RRSP', '401(k)', '401K', 'TFSA', null].map(accountTypeOf)).toEqual([
      'individual', 'individual', 'individual', 'roth_ira', 'traditional_ira', 'traditional_ira', 'traditional_ira', '401k', '401k', 'other', 'other',
    ]);
  });

  it('names a connection by its brokerage, active or disabled, its creation time in UTC', () => {
    const recorded = fixture<BrokerageAuthorization>('snaptrade/authorization.json');
    expect(authorizationOf({ ...recorded, id: 'connection-1' })).toEqual({
      id: 'connection-1',
      brokerage: { id: 'ALPACA', name: 'Alpaca', logo: 'https://passiv-brokerage-logos.s3.ca-central-1.amazonaws.com/alpaca-logo-square.png' },
      status: 'active',
      needsReconnect: false,
      disabledReason: null,
      createdAt: '2026-11-20T09:56:19.123Z',
    });
    expect(authorizationOf({ ...recorded, id: 'c', disabled: true, created_date: '2024-08-20 21:56:19.123935+00:00' })).toMatchObject({ status: 'disabled', needsReconnect: true, disabledReason: expect.any(String), createdAt: '2024-08-20T21:56:19.123Z' });
    expect(instantOf('not a time')).toBeNull();
  });

  it('gives the balance in the account’s currency', () => {
    const usd = { id: 'usd', code: 'USD', name: 'US Dollar' };
    const cad = { id: 'cad', code: 'CAD', name: 'Canadian Dollar' };
    const balances: Balance[] = [{ currency: cad, cash: 10, buying_power: 10 }, { currency: usd, cash: 3016.33, buying_power: null }];
    expect(balanceOf('a', 'USD', balances)).toEqual({ accountId: 'a', currency: 'USD', cash: '3016.33', buyingPower: '3016.33' });
  });

  it('holds securities by symbol valued to the cent, leaving out options and the cash equivalents counted in cash', () => {
    expect(positionsOf('account-0', 'USD', positions[0]!.results)).toEqual([
      { accountId: 'account-0', symbol: 'AAPL', description: 'Apple Inc.', currency: 'USD', units: '25', averagePrice: '171.2345', price: '229.87', marketValue: '5746.75' },
      { accountId: 'account-0', symbol: 'VTI', description: 'Vanguard Total Stock Market ETF', currency: 'USD', units: '20.12345', averagePrice: '245.5', price: '300.01', marketValue: '6037.24' },
    ]);
    expect(positionsOf('account-1', 'USD', positions[1]!.results)[1]).toEqual({ accountId: 'account-1', symbol: 'MSFT', description: 'Microsoft Corporation', currency: 'USD', units: '9.5', averagePrice: '0', price: '415.3', marketValue: '3945.35' });
  });

  it('reads the activities that move cash into the port’s types, signed by their effect on cash; splits are left out', () => {
    const mapped = activities[0]!.map((activity) => activityOf('account-0', 'USD', activity));
    expect(mapped.filter((activity) => activity === null)).toHaveLength(1);
    const byId = new Map(mapped.flatMap((activity) => (activity === null ? [] : [[activity.id.slice(-3), activity] as const])));
    expect(byId.get('002')).toEqual({
      id: '6a1d0c42-11f3-4e2b-9d40-41a6b6a0c002', accountId: 'account-0', type: 'BUY', symbol: 'AAPL', description: 'BUY 25 AAPL @ 171.2345', currency: 'USD',
      amount: '-4280.86', fee: '0', price: '171.2345', units: '25', tradeDate: '2026-01-06', settlementDate: '2026-01-07',
    });
    expect(byId.get('009')).toMatchObject({ type: 'SELL', amount: '1200.6', fee: '0.6', units: '4', price: '300.3' });
    expect(byId.get('010')).toMatchObject({ type: 'BUY', amount: '-6.25', units: '0.025', price: '250' });
    expect(byId.get('004')).toMatchObject({ type: 'DIVIDEND', symbol: 'AAPL', amount: '6.25', units: null, price: null });
    expect(byId.get('005')).toMatchObject({ type: 'DIVIDEND', symbol: null, amount: '1.57' });
    expect(byId.get('006')).toMatchObject({ type: 'FEE', amount: '-2.5' });
    expect(byId.get('008')).toMatchObject({ type: 'TRANSFER', amount: '-500' });
    expect(byId.get('001')).toMatchObject({ type: 'CONTRIBUTION', amount: '5000', settlementDate: '2026-01-05' });
    const undated = { ...activities[0]![0]!, trade_date: null };
    expect(activityOf('account-0', 'USD', undated)).toBeNull();
    const withoutAmount = { ...activities[0]!.find((activity) => activity.type === 'BUY')!, amount: null, units: 2, price: 10, fee: 1 };
    expect(activityOf('account-0', 'USD', withoutAmount)).toMatchObject({ amount: '-21' });
  });

  it('multiplies decimal strings exactly and rounds half away from zero to the cent', () => {
    expect(multipliedToCents('2.5', '0.333')).toBe('0.83');
    expect(multipliedToCents('0.005', '1')).toBe('0.01');
    expect(multipliedToCents('-0.005', '1')).toBe('-0.01');
    expect(multipliedToCents('3', '7')).toBe('21.00');
    expect(multipliedToCents('0.1', '0.2')).toBe('0.02');
    expect(multipliedToCents('123456789.12345678', '1000.5')).toBe('123518517518.02');
  });
});
