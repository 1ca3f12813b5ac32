import { randomUUID } from 'node:crypto';
import type { DomainEvent } from '../../src/core/events.js';
import {
  type BrokerageAccountData,
  type BrokerageAccountEvent,
  type BrokerageActivityData,
  brokerageAccountIdOf,
  brokerageAccountStreamId,
  brokerageActivityIdOf,
  type BrokerageAuthorizationEvent,
  brokerageAuthorizationStreamId,
  brokerageAuthorizationUuidOf,
} from '../../src/modules/brokerage/brokerage.events.js';

/** Cents as the provider writes money: "-2001.00". */
export const dollars = (cents: number): string => `${cents < 0 ? '-' : ''}${Math.floor(Math.abs(cents) / 100)}.${String(Math.abs(cents) % 100).padStart(2, '0')}`;

export interface SeededAccount {
  readonly data: BrokerageAccountData;
  /** The account's events, in the order a first sync appends them. */
  readonly events: BrokerageAccountEvent[];
  readonly cashCents: number;
  readonly holdingsCents: number;
  readonly totalCents: number;
}

export interface SeededConnection {
  readonly authorizationUuid: string;
  readonly brokerageAuthorizationId: string;
  readonly connected: BrokerageAuthorizationEvent;
  readonly accounts: SeededAccount[];
}

/**
 * A connection to a fictional brokerage with two accounts whose figures agree the way a sync's do:
 * cash = Σ activity amounts, each position's market value = units × price, total = cash + Σ market
 * values = the last snapshot's total. The second account is the first at twice the size.
 */
export function seededConnection(userId: string, options: { asOf: string; brokerageName?: string }): SeededConnection {
  const brokerageAuthorizationId = `auth_${randomUUID()}`;
  const authorizationUuid = brokerageAuthorizationUuidOf(userId, brokerageAuthorizationId);
  const brokerageName = options.brokerageName ?? 'Parkside Brokerage';
  const accounts = [1, 2].map((scale) => seededAccount(userId, brokerageName, `acct_${randomUUID()}`, scale, scale === 1 ? 'individual' : 'roth_ira', options.asOf));
  const connected: BrokerageAuthorizationEvent = {
    type: 'BrokerageAuthorizationConnected',
    data: {
      authorizationUuid,
      brokerageAuthorizationId,
      provider: 'sandbox',
      brokerage: { id: 'brk_parkside', name: brokerageName, logo: null },
      accounts: accounts.map((account) => account.data),
    },
  };
  return { authorizationUuid, brokerageAuthorizationId, connected, accounts };
}

export function seededAccount(userId: string, brokerageName: string, brokerageAccountId: string, scale: number, accountType: string, asOf: string): SeededAccount {
  const accountId = brokerageAccountIdOf(userId, brokerageAccountId);
  const data: BrokerageAccountData = {
    accountId,
    brokerageAccountId,
    name: accountType === 'individual' ? 'Individual Brokerage' : 'Roth IRA',
    number: `****${String(1000 + scale)}`,
    institutionName: brokerageName,
    accountType,
    accountStatus: 'open',
    currency: 'USD',
  };
  const activity = (n: number, type: BrokerageActivityData['type'], tradeDate: string, amountCents: number, extra: Partial<BrokerageActivityData> = {}): BrokerageActivityData => ({
    id: brokerageActivityIdOf(accountId, `act_${brokerageAccountId}_${n}`),
    providerActivityId: `act_${brokerageAccountId}_${n}`,
    type,
    symbol: null,
    description: `${type.toLowerCase()} ${n}`,
    currency: 'USD',
    amount: dollars(amountCents * scale),
    fee: '0.00',
    price: null,
    units: null,
    tradeDate,
    settlementDate: tradeDate,
    ...extra,
  });
  const activities = [
    activity(1, 'CONTRIBUTION', '2026-09-01', 1_000_000),
    activity(2, 'BUY', '2026-09-02', -500_000, { symbol: 'VTI', price: '250.00', units: String(20 * scale) }),
    activity(3, 'BUY', '2026-09-02', -200_100, { symbol: 'AAPL', price: '200.00', units: String(10 * scale), fee: dollars(100 * scale) }),
    activity(4, 'DIVIDEND', '2026-10-01', 1_234, { symbol: 'VTI' }),
    activity(5, 'SELL', '2026-10-15', 41_950, { symbol: 'AAPL', price: '210.00', units: String(2 * scale), fee: dollars(50 * scale) }),
    activity(6, 'FEE', '2026-11-01', -2_500, { fee: dollars(2_500 * scale) }),
  ];
  const cashCents = activities.reduce((sum, entry) => sum + Math.round(Number(entry.amount) * 100), 0);
  const positions = [
    { symbol: 'AAPL', description: 'Apple Inc.', currency: 'USD', units: String(8 * scale), averagePrice: '200.1', price: '215.55', marketValue: dollars(172_440 * scale) },
    { symbol: 'VTI', description: 'Vanguard Total Stock Market ETF', currency: 'USD', units: String(20 * scale), averagePrice: '250', price: '260.10', marketValue: dollars(520_200 * scale) },
  ];
  const holdingsCents = (172_440 + 520_200) * scale;
  const totalCents = cashCents + holdingsCents;
  const today = asOf.slice(0, 10);
  const dayBefore = (days: number) => new Date(Date.parse(`${today}T00:00:00Z`) - days * 86_400_000).toISOString().slice(0, 10);
  const snapshot = (date: string, holdings: number) => ({ date, totalValue: dollars(cashCents + holdings), cashValue: dollars(cashCents), holdingsValue: dollars(holdings), currency: 'USD' });
  const events: BrokerageAccountEvent[] = [
    { type: 'BrokerageActivitiesImported', data: { accountId, activities } },
    {
      type: 'BrokerageHoldingsRefreshed',
      data: { accountId, asOf, currency: 'USD', cash: dollars(cashCents), buyingPower: dollars(cashCents), holdingsValue: dollars(holdingsCents), totalValue: dollars(totalCents), positions },
    },
    {
      type: 'PortfolioSnapshotsTaken',
      data: { accountId, snapshots: [snapshot(dayBefore(3), holdingsCents - 3_000), snapshot(dayBefore(2), holdingsCents - 2_000), snapshot(dayBefore(1), holdingsCents - 1_000), snapshot(today, holdingsCents)] },
    },
  ];
  return { data, events, cashCents, holdingsCents, totalCents };
}

/** Streams and events in the order the connect flow and the first sync append them. */
export function appendsOf(connection: SeededConnection): Array<{ streamId: string; events: DomainEvent[] }> {
  return [
    { streamId: brokerageAuthorizationStreamId(connection.authorizationUuid), events: [connection.connected] },
    ...connection.accounts.map((account) => ({ streamId: brokerageAccountStreamId(account.data.accountId), events: account.events })),
  ];
}
