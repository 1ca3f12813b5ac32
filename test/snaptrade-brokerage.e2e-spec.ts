import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { queueBrokerageSync } from '../src/modules/brokerage/sync/brokerage-sync.job.js';
import { startSnapTradeMock, type SnapTradeMock } from './support/snaptrade-mock.js';
import { startTestApp, type TestApp } from './support/test-app.js';

const LINK_TOKEN_KEY = randomBytes(32).toString('base64');

interface ListedAccount {
  readonly id: string;
  readonly name: string;
  readonly source: string;
  readonly needsReauth: boolean;
  readonly brokerageAuthorizationId: string | null;
}

describe('the service on SnapTrade (BROKERAGE_LINK_PROVIDER=snaptrade, over the recorded exchanges)', () => {
  let t: TestApp;
  let mock: SnapTradeMock;
  beforeAll(async () => {
    mock = await startSnapTradeMock();
    t = await startTestApp({
      env: { LINK_TOKEN_KEY, BROKERAGE_LINK_PROVIDER: 'snaptrade', SNAPTRADE_CLIENT_ID: mock.clientId, SNAPTRADE_CONSUMER_KEY: mock.consumerKey, SNAPTRADE_BASE_URL: mock.url, RECURRING_REFRESH_DEBOUNCE_MS: '0' },
    });
  }, 180_000);
  afterAll(async () => {
    await t.close();
    await mock.close();
  }, 180_000);

  /** The user goes through SnapTrade's portal; the browser comes back to the service, which redirects it on. */
  async function throughThePortal(key: string, reconnectAuthorizationId?: string, finish = true): Promise<URL> {
    const { redirectUrl } = (await t.as(key).post('/v1/brokerage/connect', reconnectAuthorizationId ? { reconnectAuthorizationId } : {}).expect(200)).body as { redirectUrl: string };
    expect(redirectUrl).toMatch(/^https:\/\/app\.snaptrade\.com\/snapTrade\/redeemToken\?/);
    const login = mock.requests.filter((entry) => entry.path === '/snapTrade/login').at(-1)!.body as { customRedirect: string };
    const returnTo = finish ? mock.completePortal(redirectUrl).returnTo! : login.customRedirect;
    expect(returnTo).toMatch(/^http:\/\/localhost:0\/v1\/brokerage\/portal\/return\?session=[\w-]+$/);
    const back = new URL(returnTo);
    // SnapTrade may add parameters of its own; they are ignored.
    const answer = await request(t.server).get(`${back.pathname}${back.search}&status=SUCCESS`).redirects(0).expect(302);
    expect(answer.headers['cache-control']).toBe('no-store');
    await t.settle();
    return new URL(answer.headers.location as string);
  }

  const brokerageAccounts = async (key: string) => ((await t.as(key).get('/v1/brokerage/accounts').expect(200)).body as { accounts: ListedAccount[] }).accounts;

  it('connects through SnapTrade’s portal: the return records the connection and its investment accounts, and syncs them', async () => {
    const { key } = await t.newUser();
    const back = await throughThePortal(key);
    expect(back.searchParams.get('status')).toBe('connected');
    const authorizationId = back.searchParams.get('brokerageAuthorizationId');
    const accounts = await brokerageAccounts(key);
    expect(accounts.map((account) => [account.name, account.source, account.brokerageAuthorizationId, account.needsReauth])).toEqual([
      ['Alpaca Individual', 'brokerage_link', authorizationId, false],
      ['Alpaca Roth IRA', 'brokerage_link', authorizationId, false],
    ]);
    const activities = ((await t.as(key).get(`/v1/activities?accountId=${accounts[0]!.id}&limit=50`).expect(200)).body as { activities: { type: string; amount: number }[]; total: number });
    expect(activities.total).toBe(9);
    expect(activities.activities.filter((activity) => activity.type === 'CONTRIBUTION').map((activity) => activity.amount)).toEqual([5000]);
    const overview = (await t.as(key).get('/v1/brokerage/overview').expect(200)).body as { positionsByAccount: Record<string, { symbol: string }[]> };
    expect(overview.positionsByAccount[accounts[0]!.id]!.map((position) => position.symbol).sort()).toEqual(['AAPL', 'VTI']);
  });

  it('refuses the same return twice, and sends a browser back not connected when the user gave up in the portal', async () => {
    const { key } = await t.newUser();
    const { redirectUrl } = (await t.as(key).post('/v1/brokerage/connect', {}).expect(200)).body as { redirectUrl: string };
    const returnTo = new URL(mock.completePortal(redirectUrl).returnTo!);
    await request(t.server).get(`${returnTo.pathname}${returnTo.search}`).redirects(0).expect(302);
    const again = await request(t.server).get(`${returnTo.pathname}${returnTo.search}`).redirects(0).expect(400);
    expect(again.body).toMatchObject({ code: 'INVALID_PORTAL_SESSION' });
    await request(t.server).get('/v1/brokerage/portal/return?session=made-up').redirects(0).expect(400);

    const other = await t.newUser();
    const gaveUp = await throughThePortal(other.key, undefined, false);
    expect(gaveUp.searchParams.get('status')).toBe('not_connected');
    expect(gaveUp.searchParams.get('brokerageAuthorizationId')).toBeNull();
    expect(await brokerageAccounts(other.key)).toEqual([]);
  });

  it('shows needsReauth once a sync finds the connection disabled at SnapTrade, and clears it through a reconnect portal', async () => {
    const { key, userId } = await t.newUser();
    const authorizationId = (await throughThePortal(key)).searchParams.get('brokerageAuthorizationId')!;
    mock.disable(authorizationId);
    await queueBrokerageSync(t.runtime.jobs, userId, authorizationId, new Date());
    await t.settle();
    expect((await brokerageAccounts(key)).map((account) => account.needsReauth)).toEqual([true, true]);

    const back = await throughThePortal(key, authorizationId);
    expect(back.searchParams.get('brokerageAuthorizationId')).toBe(authorizationId);
    expect((await brokerageAccounts(key)).map((account) => account.needsReauth)).toEqual([false, false]);
  });
});
