import request from 'supertest';
import type { Clock } from '../src/core/clock.js';
import type { RecordedEvent } from '../src/core/events.js';
import { valueHoldings } from '../src/modules/brokerage/accounts/holdings-valuation.js';
import {
  type BrokerageAccountEvent,
  brokerageAccountStreamId,
  type BrokerageHoldingsRefreshed,
  type PortfolioSnapshotData,
} from '../src/modules/brokerage/brokerage.events.js';
import { createPersistentSandboxBrokerage } from '../src/modules/brokerage/provider/persistent-sandbox-brokerage.js';
import { BROKERAGE_SCHEDULED_SYNC_JOB } from '../src/modules/brokerage/sync/scheduled-brokerage-sync.job.js';
import { queueBrokerageSync } from '../src/modules/brokerage/sync/brokerage-sync.job.js';
import { createSandboxMarket } from '../src/modules/quotes/sandbox-market/index.js';
import { startTestApp, type TestApp } from './support/test-app.js';

const RETURN_URL = 'https://app.example/brokerage/done?from=portal';
let now = Date.parse('2026-11-20T10:00:00.000Z');
const clock: Clock = { now: () => new Date(now) };
const DAY = 86_400_000;

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ clock, env: { BROKERAGE_RETURN_URL: RETURN_URL, BROKERAGE_SYNC_INTERVAL_MINUTES: '0' } });
});
afterAll(() => t.close());

interface Listed {
  id: string;
  source: string;
  type: string;
  subtype: string | null;
  name: string;
  mask: string | null;
  current: number | null;
  needsReauth: boolean;
  institutionName: string | null;
  logo: string | null;
  linkItemId: string | null;
  [field: string]: unknown;
}

/** The browser opening the portal: no credential, redirects not followed; the answer must match the document. */
async function openPortal(redirectUrl: string) {
  const url = new URL(redirectUrl);
  const response = await request(t.server).get(`${url.pathname}${url.search}`).redirects(0);
  const problems = t.openApi.check('GET', url.pathname, response.status, response.headers['content-type'], response.body);
  if (problems.length > 0) throw new Error(problems.join('\n'));
  return response;
}

async function connect(key: string, body: Record<string, unknown> = {}) {
  const { redirectUrl } = (await t.as(key).post('/v1/brokerage/connect', body).expect(200)).body as { redirectUrl: string };
  const portal = await openPortal(redirectUrl);
  expect(portal.status).toBe(302);
  const location = new URL(portal.headers.location as string);
  return { redirectUrl, location, brokerageAuthorizationId: location.searchParams.get('brokerageAuthorizationId') ?? '' };
}

const brokerageAccounts = async (key: string) => ((await t.as(key).get('/v1/accounts').expect(200)).body.accounts as Listed[]).filter((account) => account.source === 'brokerage_link');
const accountEvents = async (accountId: string) => (await t.runtime.eventStore.readStream(brokerageAccountStreamId(accountId))) as unknown as RecordedEvent<BrokerageAccountEvent>[];
const snapshotsOf = (events: RecordedEvent<BrokerageAccountEvent>[]) =>
  events.filter((event) => event.type === 'PortfolioSnapshotsTaken').flatMap((event) => (event.data as { snapshots: PortfolioSnapshotData[] }).snapshots);
const lastHoldings = (events: RecordedEvent<BrokerageAccountEvent>[]) => events.filter((event) => event.type === 'BrokerageHoldingsRefreshed').at(-1)!.data as BrokerageHoldingsRefreshed['data'];

describe('brokerage connect: the portal, the accounts it brings, their sync and snapshots', () => {
  let key: string;
  let userId: string;
  let authorizationId: string;
  let accounts: Listed[];

  it('connects through the sandbox portal: a plain GET completes it and redirects to the return URL; after the first sync the accounts are in /accounts', async () => {
    ({ key, userId } = await t.newUser());
    const connected = await connect(key);
    expect(connected.redirectUrl).toMatch(/^http:\/\/localhost:0\/v1\/sandbox\/brokerage\/portal\?session=[\w-]+$/);
    expect(`${connected.location.origin}${connected.location.pathname}`).toBe('https://app.example/brokerage/done');
    expect(Object.fromEntries(connected.location.searchParams)).toEqual({ from: 'portal', brokerageAuthorizationId: expect.any(String), status: 'connected' });
    authorizationId = connected.brokerageAuthorizationId;

    // The portal answered once the accounts read model had the authorization: the accounts are there, not valued yet.
    expect((await brokerageAccounts(key)).map((account) => account.current)).toEqual([null, null]);
    await t.settle();
    accounts = await brokerageAccounts(key);
    expect(accounts.map((account) => [account.name, account.subtype]).sort()).toEqual([
      ['Individual Brokerage', 'brokerage'],
      ['Roth IRA', 'roth'],
    ]);
    for (const account of accounts) {
      expect(account).toMatchObject({ type: 'investment', source: 'brokerage_link', needsReauth: false, linkItemId: null, hasInvestments: true, institutionName: expect.any(String), logo: expect.stringMatching(/^https:\/\//), mask: expect.stringMatching(/^\d{4}$/) });
      expect(account.current).toEqual(expect.any(Number));
      const detail = (await t.as(key).get(`/v1/accounts/${account.id}`).expect(200)).body;
      expect(detail).toMatchObject({ id: account.id, source: 'brokerage_link', type: 'investment', current: account.current });
    }
  });

  it('makes the balance today’s snapshot total, from one valuation of the holdings, after a year of back-filled days', async () => {
    for (const account of accounts) {
      const events = await accountEvents(account.id);
      const holdings = lastHoldings(events);
      expect(valueHoldings(holdings.cash, holdings.positions.map((position) => position.marketValue))).toEqual({ cash: holdings.cash, holdingsValue: holdings.holdingsValue, totalValue: holdings.totalValue });
      const market = createSandboxMarket();
      for (const position of holdings.positions) expect(position.price).toBe(market.priceOn(position.symbol, '2026-11-20'));
      const snapshots = snapshotsOf(events);
      expect(snapshots).toHaveLength(366);
      expect(snapshots[0]!.date).toBe('2025-11-20');
      const today = snapshots.at(-1)!;
      expect(today).toEqual({ date: '2026-11-20', totalValue: holdings.totalValue, cashValue: holdings.cash, holdingsValue: holdings.holdingsValue, currency: 'USD' });
      expect(account.current).toBe(Number(today.totalValue));
      expect(events.filter((event) => event.type === 'BrokerageActivitiesImported').flatMap((event) => (event.data as { activities: unknown[] }).activities).length).toBeGreaterThan(20);
    }
  });

  it('refuses the portal session a second time (400 INVALID_PORTAL_SESSION), and an unknown one, changing nothing', async () => {
    const { redirectUrl } = (await t.as(key).post('/v1/brokerage/connect', {}).expect(200)).body as { redirectUrl: string };
    expect((await openPortal(redirectUrl)).status).toBe(302);
    await t.settle();
    const before = await brokerageAccounts(key);
    expect(before).toHaveLength(4);
    const again = await openPortal(redirectUrl);
    expect([again.status, again.body]).toEqual([400, { code: 'INVALID_PORTAL_SESSION', error: expect.any(String) }]);
    const unknown = await openPortal(redirectUrl.replace(/session=.*/, 'session=made-up'));
    expect(unknown.status).toBe(400);
    await t.settle();
    expect(await brokerageAccounts(key)).toEqual(before);
  });

  it('refuses a portal session past its five minutes', async () => {
    const { redirectUrl } = (await t.as(key).post('/v1/brokerage/connect', {}).expect(200)).body as { redirectUrl: string };
    now += 5 * 60_000 + 1;
    try {
      expect((await openPortal(redirectUrl)).body.code).toBe('INVALID_PORTAL_SESSION');
    } finally {
      now -= 5 * 60_000 + 1;
    }
  });

  it('appends nothing when the sync runs again the same day', async () => {
    const before = await Promise.all(accounts.map((account) => accountEvents(account.id)));
    await queueBrokerageSync(t.runtime.jobs, userId, authorizationId, new Date(now + 1000));
    await t.settle();
    expect(await Promise.all(accounts.map((account) => accountEvents(account.id)))).toEqual(before);
  });

  it('takes the next days’ snapshots from the schedule, filling a day it missed, and moves the balance with them', async () => {
    now += 2 * DAY;
    try {
      await t.runtime.jobs.enqueue(BROKERAGE_SCHEDULED_SYNC_JOB, {}, { jobId: `scheduled-${now}` });
      await t.settle();
      const listed = await brokerageAccounts(key);
      for (const account of accounts) {
        const snapshots = snapshotsOf(await accountEvents(account.id));
        expect(snapshots.slice(-3).map((snapshot) => snapshot.date)).toEqual(['2026-11-20', '2026-11-21', '2026-11-22']);
        expect(listed.find((row) => row.id === account.id)?.current).toBe(Number(snapshots.at(-1)!.totalValue));
      }
    } finally {
      now -= 2 * DAY;
    }
  });

  it('disables the authorization: needsReauth on its accounts at once, and its syncs stop; reconnecting through the portal clears it', async () => {
    const other = await t.newUser();
    await t.as(other.key).post(`/v1/sandbox/brokerage/authorizations/${encodeURIComponent(authorizationId)}/disable`).expect(404);
    await t.as(key).post('/v1/sandbox/brokerage/authorizations/no-such-authorization/disable').expect(404);

    expect((await t.as(key).post(`/v1/sandbox/brokerage/authorizations/${encodeURIComponent(authorizationId)}/disable`).expect(200)).body).toEqual({ success: true });
    const disabled = (await brokerageAccounts(key)).filter((account) => accounts.some((first) => first.id === account.id));
    expect(disabled.map((account) => account.needsReauth)).toEqual([true, true]);
    await t.as(key).post(`/v1/sandbox/brokerage/authorizations/${encodeURIComponent(authorizationId)}/disable`).expect(200);

    const before = await Promise.all(accounts.map((account) => accountEvents(account.id)));
    await queueBrokerageSync(t.runtime.jobs, userId, authorizationId, new Date(now + 2000));
    await t.settle();
    expect(await Promise.all(accounts.map((account) => accountEvents(account.id)))).toEqual(before);

    await t.as(other.key).post('/v1/brokerage/connect', { reconnectAuthorizationId: authorizationId }).expect(404);
    await t.as(key).post('/v1/brokerage/connect', { reconnectAuthorizationId: 'no-such-authorization' }).expect(404);
    const reconnected = await connect(key, { reconnectAuthorizationId: authorizationId });
    expect(reconnected.brokerageAuthorizationId).toBe(authorizationId);
    await t.settle();
    const after = await brokerageAccounts(key);
    expect(after).toHaveLength(4);
    expect(after.filter((account) => accounts.some((first) => first.id === account.id)).map((account) => account.needsReauth)).toEqual([false, false]);
  });

  it('records a disable the provider reports during a sync, and stops without failing', async () => {
    const sandbox = createPersistentSandboxBrokerage(t.runtime.database.db, { clock, market: createSandboxMarket(), portalUrl: 'http://unused' });
    await sandbox.disableAuthorization(authorizationId, 'Dropped by the brokerage');
    await queueBrokerageSync(t.runtime.jobs, userId, authorizationId, new Date(now + 3000));
    await t.settle();
    const mine = (await brokerageAccounts(key)).filter((account) => accounts.some((first) => first.id === account.id));
    expect(mine.map((account) => account.needsReauth)).toEqual([true, true]);
    expect((await t.runtime.jobs.counts()).failed ?? 0).toBe(0);
    await connect(key, { reconnectAuthorizationId: authorizationId });
    await t.settle();
  });

  it('keeps investment accounts out of manual-only operations: a transaction or a balance set by hand is 400 ACCOUNT_NOT_MANUAL', async () => {
    const [account] = accounts;
    const transaction = await t.as(key).post('/v1/transactions', { accountId: account!.id, amount: -1, date: '2026-11-20', name: 'x' }).expect(400);
    expect(transaction.body.code).toBe('ACCOUNT_NOT_MANUAL');
    const balance = await t.as(key).patch(`/v1/accounts/${account!.id}/balance`, { current: 1 }).expect(400);
    expect(balance.body.code).toBe('ACCOUNT_NOT_MANUAL');
  });
});

describe('brokerage connect without a provider (BROKERAGE_LINK_PROVIDER=none)', () => {
  it('answers connect with 400 BROKERAGE_LINK_NOT_CONFIGURED and the sandbox operations with 404', async () => {
    const off = await startTestApp({ clock, env: { BROKERAGE_LINK_PROVIDER: 'none' } });
    try {
      const { key } = await off.newUser();
      expect((await off.as(key).post('/v1/brokerage/connect', {}).expect(400)).body).toEqual({ code: 'BROKERAGE_LINK_NOT_CONFIGURED', error: expect.any(String) });
      await off.as(key).post('/v1/sandbox/brokerage/authorizations/anything/disable').expect(404);
      await request(off.server).get('/v1/sandbox/brokerage/portal?session=anything').expect(404);
    } finally {
      await off.close();
    }
  });
});
