import { specification } from '../../../core/decider-specification.test-support.js';
import type { BrokerageAccountEvent, BrokerageActivityData, BrokeragePositionData, PortfolioSnapshotData } from '../brokerage.events.js';
import { type BrokerageAccountCommand, brokerageAccountDecider, type ProviderAccountView } from './brokerage-account.decider.js';

const accountId = '22222222-2222-5222-8222-222222222222';
const activity = (providerActivityId: string, tradeDate: string): BrokerageActivityData => ({
  id: `id-${providerActivityId}`, providerActivityId, type: 'CONTRIBUTION', symbol: null, description: 'Deposit', currency: 'USD',
  amount: '100.00', fee: '0.00', price: null, units: null, tradeDate, settlementDate: tradeDate,
});
const position = (symbol: string, marketValue: string): BrokeragePositionData => ({ symbol, description: symbol, currency: 'USD', units: '2', averagePrice: '10', price: '12.5', marketValue });
const day = (date: string, totalValue: string): PortfolioSnapshotData => ({ date, totalValue, cashValue: '10.00', holdingsValue: String(Number(totalValue) - 10), currency: 'USD' });
const view = (change: Partial<ProviderAccountView> = {}): ProviderAccountView => ({
  activities: [activity('a1', '2026-11-01'), activity('a2', '2026-11-10')],
  currency: 'USD',
  cash: '10.05',
  buyingPower: '10.05',
  positions: [position('AAPL', '25.00'), position('VTI', '1234.56')],
  history: [day('2026-11-18', '1200.00'), day('2026-11-19', '1250.00')],
  ...change,
});
const sync = (change: Partial<ProviderAccountView> = {}, today = '2026-11-20'): BrokerageAccountCommand => ({ type: 'RecordAccountSync', accountId, today, asOf: `${today}T09:00:00.000Z`, view: view(change) });
const spec = specification(brokerageAccountDecider);
const firstSync = brokerageAccountDecider.decide(sync(), brokerageAccountDecider.initialState());

describe('brokerage account decider', () => {
  it('imports every activity, values the holdings to the cent, and snapshots the history and today from that one valuation', () => {
    expect(firstSync).toEqual([
      { type: 'BrokerageActivitiesImported', data: { accountId, activities: view().activities } },
      {
        type: 'BrokerageHoldingsRefreshed',
        data: { accountId, asOf: '2026-11-20T09:00:00.000Z', currency: 'USD', cash: '10.05', buyingPower: '10.05', holdingsValue: '1259.56', totalValue: '1269.61', positions: view().positions },
      },
      {
        type: 'PortfolioSnapshotsTaken',
        data: { accountId, snapshots: [day('2026-11-18', '1200.00'), day('2026-11-19', '1250.00'), { date: '2026-11-20', totalValue: '1269.61', cashValue: '10.05', holdingsValue: '1259.56', currency: 'USD' }] },
      },
    ]);
  });

  it('appends nothing when the same sync runs again (a rerun, or one resumed after a crash)', () => {
    spec.given(firstSync).when(sync()).then([]);
  });

  it('imports only activities it does not have, by provider id, even when the provider repeats one in a page', () => {
    const a3 = activity('a3', '2026-11-20');
    spec.given(firstSync).when(sync({ activities: [...view().activities, a3, a3] })).then([{ type: 'BrokerageActivitiesImported', data: { accountId, activities: [a3] } }]);
  });

  it('refreshes holdings only when something in them moved, and then retakes today’s snapshot to match', () => {
    spec.given(firstSync).when(sync({ cash: '10.050' })).then([]);
    const moved = brokerageAccountDecider.decide(sync({ positions: [position('AAPL', '26.00'), position('VTI', '1234.56')] }), firstSync.reduce(brokerageAccountDecider.evolve, brokerageAccountDecider.initialState()));
    expect(moved.map((event) => event.type)).toEqual(['BrokerageHoldingsRefreshed', 'PortfolioSnapshotsTaken']);
    expect(moved[1]!.data).toEqual({ accountId, snapshots: [{ date: '2026-11-20', totalValue: '1270.61', cashValue: '10.05', holdingsValue: '1260.56', currency: 'USD' }] });
  });

  it('fills the days missed since the last snapshot, never rewrites older ones, and ignores history of today or later', () => {
    const later = sync({ history: [day('2026-11-19', '9.99'), day('2026-11-20', '1300.00'), day('2026-11-21', '1310.00'), day('2026-11-22', '1320.00'), day('2026-11-23', '1.00')] }, '2026-11-23');
    const events = brokerageAccountDecider.decide(later, firstSync.reduce(brokerageAccountDecider.evolve, brokerageAccountDecider.initialState()));
    const snapshots = (events.find((event) => event.type === 'PortfolioSnapshotsTaken') as Extract<BrokerageAccountEvent, { type: 'PortfolioSnapshotsTaken' }>).data.snapshots;
    expect(snapshots.map((snapshot) => [snapshot.date, snapshot.totalValue])).toEqual([
      ['2026-11-21', '1310.00'],
      ['2026-11-22', '1320.00'],
      ['2026-11-23', '1269.61'],
    ]);
  });
});
