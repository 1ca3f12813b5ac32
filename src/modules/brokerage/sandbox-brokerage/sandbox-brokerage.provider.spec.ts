import { createSandboxMarket, formatIsoDate, parseIsoDate } from '../../quotes/sandbox-market/index.js';
import { BrokerageLinkError, type BrokerageActivity, type BrokerageUser } from '../brokerage-link.port.js';
import { parseCents, parseScaled, valueCents } from './brokerage-decimal.js';
import { createSandboxBrokerage, type SandboxBrokerage } from './index.js';

const asOf = '2026-11-20';
const market = createSandboxMarket();

async function connected(seed = 4): Promise<{ brokerage: SandboxBrokerage; user: BrokerageUser; authorizationId: string; accountIds: string[] }> {
  const brokerage = createSandboxBrokerage({ seed, asOf, market, clock: { now: () => new Date('2026-11-20T09:00:00Z') } });
  const user = await brokerage.registerUser('user-1');
  const authorization = brokerage.completeConnection({ user, brokerageId: 'brk_tidewater' });
  const accountIds = (await brokerage.listAccounts(user)).map((account) => account.id);
  return { brokerage, user, authorizationId: authorization.id, accountIds };
}

const unitsBySymbol = (activities: readonly BrokerageActivity[], upTo = '9999-12-31'): Map<string, number> => {
  const units = new Map<string, number>();
  for (const activity of activities) {
    if (activity.tradeDate > upTo || (activity.type !== 'BUY' && activity.type !== 'SELL')) continue;
    const signed = parseScaled(activity.units!) * (activity.type === 'BUY' ? 1 : -1);
    units.set(activity.symbol!, (units.get(activity.symbol!) ?? 0) + signed);
  }
  return units;
};
const cashUpTo = (activities: readonly BrokerageActivity[], upTo: string): number =>
  activities.filter((activity) => activity.tradeDate <= upTo).reduce((sum, activity) => sum + parseCents(activity.amount), 0);

describe('the sandbox brokerage', () => {
  it('is deterministic for a seed', async () => {
    const [first, second] = [await connected(), await connected()];
    expect(second.accountIds).toEqual(first.accountIds);
    for (const id of first.accountIds) {
      expect(JSON.stringify(await second.brokerage.getActivities(second.user, id))).toBe(JSON.stringify(await first.brokerage.getActivities(first.user, id)));
    }
    expect((await connected(5)).accountIds).not.toEqual(first.accountIds);
  });

  it('records every activity type, trades at the market close, and never overdraws cash', async () => {
    const { brokerage, user, accountIds } = await connected();
    const all = (await Promise.all(accountIds.map((id) => brokerage.getActivities(user, id)))).flat();
    expect(new Set(all.map((activity) => activity.type))).toEqual(new Set(['BUY', 'SELL', 'DIVIDEND', 'FEE', 'CONTRIBUTION', 'TRANSFER']));
    for (const activity of all.filter((a) => a.type === 'BUY' || a.type === 'SELL')) {
      expect(activity.price).toBe(market.priceOn(activity.symbol!, activity.tradeDate));
      expect(activity.settlementDate > activity.tradeDate).toBe(true);
    }
    for (const id of accountIds) {
      const activities = await brokerage.getActivities(user, id);
      let cash = 0;
      for (const activity of activities) {
        cash += parseCents(activity.amount);
        expect(cash).toBeGreaterThanOrEqual(0);
      }
    }
  });

  it('has positions equal to the sum of trades and cash equal to the sum of cash flows', async () => {
    const { brokerage, user, accountIds } = await connected();
    for (const id of accountIds) {
      const activities = await brokerage.getActivities(user, id);
      const positions = await brokerage.getPositions(user, id);
      const traded = [...unitsBySymbol(activities)].filter(([, units]) => units > 0);
      expect(positions.map((position) => [position.symbol, parseScaled(position.units)])).toEqual(traded.sort(([a], [b]) => a.localeCompare(b)));
      for (const position of positions) {
        expect(position.price).toBe(market.priceOn(position.symbol, asOf));
        expect(parseCents(position.marketValue)).toBe(valueCents(parseScaled(position.units), parseCents(position.price)));
      }
      const balance = await brokerage.getBalance(user, id);
      expect(parseCents(balance.cash)).toBe(cashUpTo(activities, asOf));
    }
  });

  it('values the portfolio each day at Σ units × that day’s price + cash', async () => {
    const { brokerage, user, accountIds } = await connected();
    for (const id of accountIds) {
      const activities = await brokerage.getActivities(user, id);
      const values = await brokerage.getPortfolioValues(user, id);
      expect(values[0]!.date).toBe(activities[0]!.tradeDate);
      expect(values[values.length - 1]!.date).toBe(asOf);
      expect(parseIsoDate(asOf) - parseIsoDate(values[0]!.date) + 1).toBe(values.length);
      for (const value of values.filter((_value, index) => index % 29 === 0 || index === values.length - 1)) {
        let holdings = 0;
        for (const [symbol, units] of unitsBySymbol(activities, value.date)) holdings += valueCents(units, market.priceCentsOn(symbol, value.date));
        const cash = cashUpTo(activities, value.date);
        expect([parseCents(value.holdingsValue), parseCents(value.cashValue), parseCents(value.totalValue)]).toEqual([holdings, cash, holdings + cash]);
      }
      const positions = await brokerage.getPositions(user, id);
      const last = values[values.length - 1]!;
      expect(parseCents(last.holdingsValue)).toBe(positions.reduce((sum, position) => sum + parseCents(position.marketValue), 0));
    }
  });

  it('filters activities and values by date range', async () => {
    const { brokerage, user, accountIds } = await connected();
    const range = { startDate: '2025-06-01', endDate: '2025-06-30' };
    const activities = await brokerage.getActivities(user, accountIds[0]!, range);
    expect(activities.length).toBeGreaterThan(0);
    expect(activities.every((activity) => activity.tradeDate >= range.startDate && activity.tradeDate <= range.endDate)).toBe(true);
    expect((await brokerage.getPortfolioValues(user, accountIds[0]!, range)).map((value) => value.date)).toEqual(
      Array.from({ length: 30 }, (_unused, index) => formatIsoDate(parseIsoDate('2025-06-01') + index)),
    );
  });

  it('simulates a disabled authorization that needs reconnecting, then repairs it', async () => {
    const { brokerage, user, authorizationId, accountIds } = await connected();
    brokerage.disableAuthorization(authorizationId);
    expect(await brokerage.listAuthorizations(user)).toEqual([expect.objectContaining({ id: authorizationId, status: 'disabled', needsReconnect: true })]);
    expect(await brokerage.listAccounts(user)).toHaveLength(2);
    await expect(brokerage.getPositions(user, accountIds[0]!)).rejects.toMatchObject({ code: 'AUTHORIZATION_DISABLED' });
    const portal = await brokerage.createConnectionPortal({ user, reconnectAuthorizationId: authorizationId });
    expect(portal).toEqual({ redirectUri: expect.stringContaining('https://connect.sandbox.ledgerline.example/portal'), expiresAt: '2026-11-20T09:05:00.000Z' });
    brokerage.completeConnection({ user, reconnectAuthorizationId: authorizationId });
    expect((await brokerage.listAuthorizations(user))[0]).toMatchObject({ status: 'active', needsReconnect: false, disabledReason: null });
    await expect(brokerage.getPositions(user, accountIds[0]!)).resolves.not.toHaveLength(0);
  });

  it('refuses a wrong secret, another user’s account, and a removed authorization', async () => {
    const { brokerage, user, authorizationId, accountIds } = await connected();
    await expect(brokerage.listAccounts({ ...user, userSecret: 'guess' })).rejects.toBeInstanceOf(BrokerageLinkError);
    const stranger = await brokerage.registerUser('user-2');
    await expect(brokerage.getBalance(stranger, accountIds[0]!)).rejects.toMatchObject({ code: 'ACCOUNT_NOT_FOUND' });
    await brokerage.removeAuthorization(user, authorizationId);
    expect(await brokerage.listAccounts(user)).toEqual([]);
    await expect(brokerage.getBalance(user, accountIds[0]!)).rejects.toMatchObject({ code: 'ACCOUNT_NOT_FOUND' });
  });
});
