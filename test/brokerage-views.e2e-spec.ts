import { randomUUID } from 'node:crypto';
import type { DomainEvent } from '../src/core/events.js';
import { brokerageAuthorizationStreamId } from '../src/modules/brokerage/brokerage.events.js';
import { appendsOf, seededAccount, seededConnection, type SeededConnection } from '../projections/brokerage/brokerage-events.test-support.js';
import { startTestApp, type TestApp } from './support/test-app.js';

/**
 * The brokerage views over a connection seeded straight into the app's event store, as the connect
 * flow and the first sync append it: the views read only the read model, never the provider.
 */
let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const metadata = (userId: string) => ({ userId, actor: 'system' as const, requestId: `seed-${randomUUID()}`, causationId: randomUUID(), correlationId: randomUUID(), occurredAt: new Date().toISOString(), schemaVersion: 1 });

async function append(userId: string, streamId: string, events: readonly DomainEvent[], expected: bigint | 'no_stream'): Promise<void> {
  await t.runtime.eventStore.appendToStream(streamId, events.map((event) => ({ type: event.type, data: event.data, metadata: metadata(userId) })), expected);
}

async function connectedUser(): Promise<{ key: string; userId: string; seeded: SeededConnection; today: string }> {
  const { key, userId } = await t.newUser();
  const asOf = new Date().toISOString();
  const seeded = seededConnection(userId, { asOf });
  for (const { streamId, events } of appendsOf(seeded)) await append(userId, streamId, events, 'no_stream');
  await t.settle();
  return { key, userId, seeded, today: asOf.slice(0, 10) };
}

const cents = (decimal: string | number | null) => Math.round(Number(decimal) * 100);

interface Listed {
  id: string;
  needsReauth: boolean;
  brokerageAuthorizationId: string;
  accountDetails: { id: string; balance: string | null; lastSync: string | null };
  balances: Array<{ id: string; cash: string | null }>;
  [field: string]: unknown;
}
interface Overview {
  accounts: Listed[];
  balances: Array<{ id: string; accountId: string; cash: string }>;
  positions: Array<{ accountId: string; marketValue: string }>;
  activities: Array<{ id: string; accountId: string }>;
  portfolioSnapshots: Array<{ accountId: string; date: string; totalValue: string }>;
  balancesByAccount: Record<string, unknown[]>;
  positionsByAccount: Record<string, unknown[]>;
  activitiesByAccount: Record<string, unknown[]>;
  userBrokerages: string[];
}
interface Activity {
  id: string;
  accountId: string;
  amount: number;
  tradeDate: string;
}

describe('brokerage views', () => {
  it('agree with each other: balance = cash + Σ market values = today’s snapshot; the overview’s maps are its arrays by account; activities add up to cash', async () => {
    const { key, seeded, today } = await connectedUser();
    const accounts = (await t.as(key).get('/v1/brokerage/accounts').expect(200)).body.accounts as Listed[];
    expect(accounts.map((account) => account.id).sort()).toEqual(seeded.accounts.map((account) => account.data.accountId).sort());
    const overview = (await t.as(key).get('/v1/brokerage/overview').expect(200)).body as Overview;
    expect(overview.accounts).toEqual(accounts);
    expect(overview.userBrokerages).toEqual(['Parkside Brokerage']);

    for (const account of accounts) {
      const seededAccount = seeded.accounts.find((candidate) => candidate.data.accountId === account.id)!;
      expect(account).toMatchObject({
        source: 'brokerage_link',
        needsReauth: false,
        brokerageAuthorizationId: seeded.brokerageAuthorizationId,
        accountType: seededAccount.data.accountType,
        accountStatus: 'open',
        institutionName: 'Parkside Brokerage',
        accountDetails: { id: seededAccount.data.brokerageAccountId, lastSync: expect.any(String) },
        balances: [{ id: expect.any(String), currencyCode: 'USD', currencyName: 'US Dollar', lastSync: account.accountDetails.lastSync }],
      });
      expect(account).not.toHaveProperty('linkAccountId');
      const balance = cents(account.accountDetails.balance);
      const [listedBalance] = account.balances;
      const positions = overview.positions.filter((position) => position.accountId === account.id);
      expect(positions).toHaveLength(2);
      expect(cents(listedBalance.cash) + positions.reduce((sum, position) => sum + cents(position.marketValue), 0)).toBe(balance);
      expect(balance).toBe(seededAccount.totalCents);

      const snapshots = (await t.as(key).get(`/v1/portfolio/snapshots?accountId=${account.id}&startDate=${today}&endDate=${today}`).expect(200)).body.snapshots;
      expect(snapshots).toEqual([expect.objectContaining({ accountId: account.id, date: today, currency: 'USD' })]);
      expect(cents(snapshots[0].totalValue)).toBe(balance);
      expect(cents(snapshots[0].cashValue) + cents(snapshots[0].holdingsValue)).toBe(balance);
      const latestInOverview = overview.portfolioSnapshots.filter((snapshot) => snapshot.accountId === account.id).at(-1)!;
      expect([latestInOverview.date, cents(latestInOverview.totalValue)]).toEqual([today, balance]);

      const own = (await t.as(key).get(`/v1/activities?accountId=${account.id}&limit=500`).expect(200)).body as { activities: Activity[]; total: number };
      expect(own.total).toBe(6);
      expect(own.activities.every((activity) => activity.accountId === account.id)).toBe(true);
      expect(own.activities.reduce((sum, activity) => sum + cents(activity.amount), 0)).toBe(cents(listedBalance.cash));
    }

    // The by-account maps hold every account, and are the arrays grouped.
    const ids = accounts.map((account) => account.id).sort();
    for (const [map, array] of [
      [overview.balancesByAccount, overview.balances],
      [overview.positionsByAccount, overview.positions],
      [overview.activitiesByAccount, overview.activities],
    ] as Array<[Record<string, unknown[]>, Array<{ accountId: string }>]>) {
      expect(Object.keys(map).sort()).toEqual(ids);
      for (const id of ids) expect(map[id]).toEqual(array.filter((item) => item.accountId === id));
    }
    expect(overview.balances.map((balance) => balance.id).sort()).toEqual(accounts.map((account) => account.balances[0].id).sort());
    const everyActivity = (await t.as(key).get('/v1/activities?limit=500').expect(200)).body as { activities: Activity[]; total: number };
    expect(overview.activities.map((activity) => activity.id)).toEqual(everyActivity.activities.map((activity) => activity.id));
  });

  it('pages activities newest first with a stable order: the pages make up the whole list, with its total', async () => {
    const { key } = await connectedUser();
    const whole = (await t.as(key).get('/v1/activities').expect(200)).body as { activities: Activity[]; total: number };
    expect(whole.total).toBe(12);
    expect(whole.activities).toHaveLength(12);
    const dates = whole.activities.map((activity) => activity.tradeDate);
    expect(dates).toEqual([...dates].sort().reverse());
    const paged: Activity[] = [];
    for (let offset = 0; offset < 14; offset += 5) {
      const page = (await t.as(key).get(`/v1/activities?limit=5&offset=${offset}`).expect(200)).body as { activities: Activity[]; total: number };
      expect(page.total).toBe(12);
      paged.push(...page.activities);
    }
    expect(paged).toEqual(whole.activities);
    expect((await t.as(key).get('/v1/activities?offset=12').expect(200)).body).toEqual({ activities: [], total: 12 });
  });

  it('shows needsReauth while the authorization is disabled; a reconnect clears it and brings the accounts new at the brokerage', async () => {
    const { key, userId, seeded } = await connectedUser();
    const stream = brokerageAuthorizationStreamId(seeded.authorizationUuid);
    await append(userId, stream, [{ type: 'BrokerageAuthorizationDisabled', data: { authorizationUuid: seeded.authorizationUuid, reason: 'Sign in again at the brokerage' } }], 0n);
    await t.settle();
    const disabled = (await t.as(key).get('/v1/brokerage/accounts').expect(200)).body.accounts as Listed[];
    expect(disabled.map((account) => [account.needsReauth, account.brokerageAuthorizationId])).toEqual([
      [true, seeded.brokerageAuthorizationId],
      [true, seeded.brokerageAuthorizationId],
    ]);
    expect(((await t.as(key).get('/v1/brokerage/overview').expect(200)).body as Overview).accounts.every((account) => account.needsReauth)).toBe(true);

    const added = seededAccount(userId, 'Parkside Brokerage', `acct_${randomUUID()}`, 3, 'traditional_ira', new Date().toISOString());
    await append(userId, stream, [{ type: 'BrokerageAuthorizationReconnected', data: { authorizationUuid: seeded.authorizationUuid, addedAccounts: [added.data] } }], 1n);
    await t.settle();
    const reconnected = (await t.as(key).get('/v1/brokerage/accounts').expect(200)).body.accounts as Listed[];
    expect(reconnected.map((account) => account.needsReauth)).toEqual([false, false, false]);
    // Not synced yet: listed, with no balance, and under its own key of every map.
    expect(reconnected.find((account) => account.id === added.data.accountId)).toMatchObject({ accountDetails: { id: added.data.brokerageAccountId, balance: null, lastSync: null }, balances: [] });
    const overview = (await t.as(key).get('/v1/brokerage/overview').expect(200)).body as Overview;
    expect([overview.balancesByAccount[added.data.accountId], overview.positionsByAccount[added.data.accountId], overview.activitiesByAccount[added.data.accountId]]).toEqual([[], [], []]);
    await t.as(key).get(`/v1/activities?accountId=${added.data.accountId}`).expect(200, { activities: [], total: 0 });
  });

  it("answers 404 to an accountId that is not one of the user's brokerage accounts, and shows nothing of another user's", async () => {
    const a = await connectedUser();
    const b = await t.newUser();
    const manual = (await t.as(a.key).post('/v1/accounts', { name: 'Cash', type: 'bank', subtype: 'checking', currentBalance: 10 }).expect(201)).body.id as string;
    const accountOfA = a.seeded.accounts[0].data.accountId;
    for (const [key, accountId] of [
      [b.key, accountOfA],
      [a.key, randomUUID()],
      [a.key, 'not-a-uuid'],
      [a.key, manual],
    ]) {
      for (const path of ['/v1/activities', '/v1/portfolio/snapshots']) {
        const response = await t.as(key).get(`${path}?accountId=${encodeURIComponent(accountId)}`).expect(404);
        expect(response.body).toEqual({ code: 'NOT_FOUND', error: 'Brokerage account not found' });
      }
    }
    // An upper-case spelling of one's own id names the same account.
    await t.as(a.key).get(`/v1/activities?accountId=${accountOfA.toUpperCase()}`).expect(200);
    expect((await t.as(b.key).get('/v1/brokerage/accounts').expect(200)).body).toEqual({ accounts: [] });
    expect((await t.as(b.key).get('/v1/brokerage/overview').expect(200)).body).toEqual({
      balances: [], activities: [], positions: [], accounts: [], portfolioSnapshots: [], balancesByAccount: {}, activitiesByAccount: {}, positionsByAccount: {}, userBrokerages: [],
    });
    expect((await t.as(b.key).get('/v1/activities').expect(200)).body).toEqual({ activities: [], total: 0 });
    expect((await t.as(b.key).get('/v1/portfolio/snapshots').expect(200)).body).toEqual({ snapshots: [] });
  });

  it('refuses a limit outside 1..500, an offset that is not an integer ≥ 0 and a bad date range (422), and a key without the read scope (403)', async () => {
    const { key, seeded } = await connectedUser();
    for (const query of ['limit=0', 'limit=501', 'limit=abc', 'limit=1.5', 'offset=-1', 'offset=x', 'offset=1.5', 'offset=1e300']) {
      const response = await t.as(key).get(`/v1/activities?${query}`).expect(422);
      expect([query, response.body.error.issues[0].path]).toEqual([query, [query.split('=')[0]]]);
    }
    const repeated = await t.as(key).get(`/v1/activities?accountId=${seeded.accounts[0].data.accountId}&accountId=${seeded.accounts[1].data.accountId}`).expect(422);
    expect(repeated.body.error.issues[0].path).toEqual(['accountId']);
    for (const query of ['startDate=2026-11-20&endDate=2026-11-19', 'startDate=2025-02-30', 'endDate=20261120']) {
      await t.as(key).get(`/v1/portfolio/snapshots?${query}`).expect(422);
    }
    const snapshots = (await t.as(key).get('/v1/portfolio/snapshots').expect(200)).body.snapshots as Array<{ date: string }>;
    expect(snapshots).toHaveLength(8);
    expect(snapshots.map((snapshot) => snapshot.date)).toEqual([...snapshots.map((snapshot) => snapshot.date)].sort());

    const writeOnly = await t.newUser(['write']);
    for (const path of ['/v1/brokerage/accounts', '/v1/brokerage/overview', '/v1/activities', '/v1/portfolio/snapshots']) {
      expect((await t.as(writeOnly.key).get(path).expect(403)).body.error.code).toBe('FORBIDDEN');
    }
  });
});
