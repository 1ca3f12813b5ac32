import { type BrokerageAccountRow, currencyNameOf, groupByAccount, toActivityListItem, toBrokerageAccountListItem, toBrokerageActivity, toBrokerageBalance } from './brokerage-views.mapping.js';

const synced: BrokerageAccountRow = {
  id: '6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f',
  user_id: '0d9c8b7a-6f5e-4d3c-9b2a-1f0e9d8c7b6a',
  brokerage_account_id: 'acct_1',
  name: 'Roth IRA',
  institution_name: 'Parkside Brokerage',
  account_type: 'roth_ira',
  account_status: 'open',
  created_at: new Date('2026-11-01T10:00:00.000Z'),
  brokerage_authorization_id: 'auth_1',
  disabled_at: null,
  balance_id: '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d',
  currency: 'USD',
  cash: '3405.8400',
  buying_power: '3405.8400',
  total_value: '10332.2400',
  last_sync: new Date('2026-11-20T21:00:00.000Z'),
  balance_created_at: new Date('2026-11-20T21:00:01.000Z'),
  balance_updated_at: new Date('2026-11-20T21:00:01.000Z'),
};
const neverSynced: BrokerageAccountRow = { ...synced, balance_id: null, currency: null, cash: null, buying_power: null, total_value: null, last_sync: null, balance_created_at: null, balance_updated_at: null };

describe('brokerage views: mapping rows to the API', () => {
  it('names currencies in English, and a code it does not know as null', () => {
    expect(currencyNameOf('USD')).toBe('US Dollar');
    expect(currencyNameOf('EUR')).toBe('Euro');
    expect(currencyNameOf('QQQ')).toBeNull();
    expect(currencyNameOf('not a code')).toBeNull();
    expect(currencyNameOf(null)).toBeNull();
  });

  it('lists a synced account with its total as the balance and its one balance entry, money without trailing zeros', () => {
    expect(toBrokerageAccountListItem(synced)).toEqual({
      id: synced.id,
      name: 'Roth IRA',
      institutionName: 'Parkside Brokerage',
      accountType: 'roth_ira',
      accountStatus: 'open',
      source: 'brokerage_link',
      needsReauth: false,
      brokerageAuthorizationId: 'auth_1',
      accountDetails: { id: 'acct_1', balance: '10332.24', lastSync: '2026-11-20T21:00:00.000Z' },
      balances: [{ id: synced.balance_id, buyingPower: '3405.84', cash: '3405.84', currencyCode: 'USD', currencyName: 'US Dollar', lastSync: '2026-11-20T21:00:00.000Z' }],
    });
    expect('linkAccountId' in toBrokerageAccountListItem(synced)).toBe(false);
  });

  it('lists an account not synced yet with a null balance and no balance entry; a disabled authorization needs a reconnect', () => {
    const listed = toBrokerageAccountListItem({ ...neverSynced, disabled_at: new Date('2026-11-21T08:00:00.000Z') });
    expect(listed).toMatchObject({ needsReauth: true, accountDetails: { id: 'acct_1', balance: null, lastSync: null }, balances: [] });
    expect(toBrokerageBalance(neverSynced)).toBeNull();
    expect(toBrokerageBalance(synced)).toMatchObject({ accountId: synced.id, userId: synced.user_id, cash: '3405.84', brokerageAccountId: 'acct_1', createdAt: '2026-11-20T21:00:01.000Z' });
  });

  it('writes an activity with decimal strings in the overview and numbers in the list', () => {
    const row = {
      id: '7b6a5f4e-3d2c-4b1a-9f8e-7d6c5b4a3f2e', account_id: synced.id, provider_activity_id: 'act_3', type: 'BUY', symbol: 'AAPL', description: 'Bought AAPL', currency: 'USD',
      amount: '-2001.0000', fee: '1.0000', price: '200.00000000', units: '10.50000000', trade_date: '2026-09-02', settlement_date: '2026-09-04', created_at: new Date('2026-11-20T21:00:01.000Z'),
    };
    expect(toBrokerageActivity(row)).toMatchObject({ activityId: 'act_3', amount: '-2001', fee: '1', price: '200', units: '10.5', currencyCode: 'USD', createdAt: '2026-11-20T21:00:01.000Z' });
    expect(toActivityListItem(row)).toMatchObject({ amount: -2001, fee: 1, price: 200, units: 10.5, tradeDate: '2026-09-02' });
    expect(toActivityListItem({ ...row, type: 'FEE', symbol: null, price: null, units: null })).toMatchObject({ symbol: null, price: null, units: null });
  });

  it('keys every account, one with nothing under an empty array', () => {
    expect(groupByAccount(['a', 'b'], [{ accountId: 'a', n: 1 }, { accountId: 'a', n: 2 }])).toEqual({ a: [{ accountId: 'a', n: 1 }, { accountId: 'a', n: 2 }], b: [] });
  });
});
