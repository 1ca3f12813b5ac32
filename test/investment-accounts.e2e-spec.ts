import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { nightlyBalanceSnapshotsJob } from '../src/modules/accounts/nightly-balance-snapshots.job.js';
import { startTestApp, type TestApp } from './support/test-app.js';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ env: { LINK_TOKEN_KEY: randomBytes(32).toString('base64'), BROKERAGE_SYNC_INTERVAL_MINUTES: '0' } });
}, 180_000);
afterAll(() => t.close(), 180_000);

const today = () => new Date().toISOString().slice(0, 10);

interface Snapshot {
  id: string;
  accountId: string;
  date: string;
  currentBalance: number;
  availableBalance: number;
  creditLimit: number | null;
}

const snapshotsOf = async (key: string, query = ''): Promise<Snapshot[]> => (await t.as(key).get(`/v1/balances/snapshots${query}`).expect(200)).body.snapshots;

/** A brokerage connection made as a user makes one: the portal opened by the browser, then its first sync. */
async function connectBrokerage(key: string): Promise<string> {
  const redirectUrl = new URL((await t.as(key).post('/v1/brokerage/connect', {}).expect(200)).body.redirectUrl);
  const portal = await request(t.server).get(`${redirectUrl.pathname}${redirectUrl.search}`).redirects(0).expect(302);
  await t.settle();
  return new URL(portal.headers.location as string).searchParams.get('brokerageAuthorizationId') as string;
}

describe('investment history: balance snapshots', () => {
  it("keeps a manual investment account's history in /balances/snapshots (creation, balance patch, nightly run), with creditLimit null", async () => {
    const { key } = await t.newUser();
    const created = (await t.as(key).post('/v1/accounts', { name: 'Roth', type: 'investment', subtype: 'roth', currentBalance: 1000 }).expect(201)).body;
    expect(await snapshotsOf(key)).toEqual([{ id: expect.any(String), accountId: created.id, date: today(), currentBalance: 1000, availableBalance: 1000, creditLimit: null }]);
    await t.as(key).patch(`/v1/accounts/${created.id}/balance`, { current: 1234.5 }).expect(200);
    await nightlyBalanceSnapshotsJob(t.runtime).handle({});
    expect(await snapshotsOf(key, `?accountId=${created.id}`)).toEqual([{ id: expect.any(String), accountId: created.id, date: today(), currentBalance: 1234.5, availableBalance: 1234.5, creditLimit: null }]);
    const card = (await t.as(key).post('/v1/accounts', { name: 'Card', type: 'credit_card', subtype: 'credit card', currentBalance: -50, creditLimit: 500 }).expect(201)).body;
    expect(await snapshotsOf(key, `?accountId=${card.id}`)).toEqual([expect.objectContaining({ currentBalance: -50, availableBalance: 450, creditLimit: 500 })]);
  });

  it('gives bank-linked accounts their first snapshot when they are linked, from the balances they came with; the night keeps one per account for the day, with the balances of then', async () => {
    const { key } = await t.newUser();
    const { publicToken } = (await t.as(key).post('/v1/sandbox/public-token', { institutionId: 'ins_100004' }).expect(200)).body;
    await t.as(key).post('/v1/link/items', { publicToken }).expect(201);
    // No settling: linking answers once its snapshots are in.
    const snapshots = await snapshotsOf(key);
    const accounts = (await t.as(key).get('/v1/accounts').expect(200)).body.accounts as Array<{ id: string; type: string; current: number; creditLimit: number | null }>;
    expect(accounts).toHaveLength(4);
    expect(snapshots.map((snapshot) => snapshot.accountId).sort()).toEqual(accounts.map((account) => account.id).sort());
    for (const account of accounts) {
      const snapshot = snapshots.find((candidate) => candidate.accountId === account.id) as Snapshot;
      expect([account.type, snapshot.date, snapshot.currentBalance, snapshot.creditLimit]).toEqual([account.type, today(), account.current, account.type === 'credit_card' ? account.creditLimit : null]);
    }
    await t.settle();
    await nightlyBalanceSnapshotsJob(t.runtime).handle({});
    await t.settle();
    const night = await snapshotsOf(key);
    const synced = (await t.as(key).get('/v1/accounts').expect(200)).body.accounts as Array<{ id: string; current: number }>;
    expect(night.map((snapshot) => [snapshot.id, snapshot.accountId, snapshot.date, snapshot.currentBalance]).sort()).toEqual(
      synced.map((account) => [snapshots.find((snapshot) => snapshot.accountId === account.id)!.id, account.id, today(), account.current]).sort(),
    );
  }, 120_000);

  it('leaves brokerage-linked accounts out (their series is /portfolio/snapshots): not listed, and a filter on one is a 404', async () => {
    const { key } = await t.newUser();
    await connectBrokerage(key);
    const connected = ((await t.as(key).get('/v1/accounts').expect(200)).body.accounts as Array<{ id: string; source: string }>).filter((account) => account.source === 'brokerage_link');
    expect(connected.length).toBeGreaterThan(0);
    await nightlyBalanceSnapshotsJob(t.runtime).handle({});
    expect(await snapshotsOf(key)).toEqual([]);
    await t.as(key).get(`/v1/balances/snapshots?accountId=${connected[0]!.id}`).expect(404);
    expect(((await t.as(key).get(`/v1/portfolio/snapshots?accountId=${connected[0]!.id}`).expect(200)).body.snapshots as unknown[]).length).toBeGreaterThan(300);
  }, 120_000);
});

describe('GET /brokerage/accounts and the brokerage views: investment accounts not connected through a brokerage', () => {
  it('lists a manual investment account beside the connected ones (source manual, no authorization, its own balance), in the overview too, and its filters answer empty, not 404', async () => {
    const { key } = await t.newUser();
    const manual = (await t.as(key).post('/v1/accounts', { name: 'Old 401k', type: 'investment', subtype: '401k', currentBalance: 20500.25, institutionName: 'Acme Retirement' }).expect(201)).body;
    await t.as(key).post('/v1/accounts', { name: 'Checking', type: 'bank', subtype: 'checking', currentBalance: 10 }).expect(201);
    const authorizationId = await connectBrokerage(key);

    const listed = (await t.as(key).get('/v1/brokerage/accounts').expect(200)).body.accounts as Array<Record<string, unknown>>;
    expect(listed).toHaveLength(3);
    expect(listed[0]).toEqual({
      id: manual.id,
      name: 'Old 401k',
      institutionName: 'Acme Retirement',
      accountType: '401k',
      accountStatus: 'open',
      source: 'manual',
      needsReauth: false,
      brokerageAuthorizationId: null,
      accountDetails: { id: manual.id, balance: '20500.25', lastSync: null },
      balances: [],
    });
    for (const connected of listed.slice(1)) expect(connected).toMatchObject({ source: 'brokerage_link', brokerageAuthorizationId: authorizationId, needsReauth: false });

    const overview = (await t.as(key).get('/v1/brokerage/overview').expect(200)).body;
    expect(overview.accounts).toEqual(listed);
    for (const map of ['balancesByAccount', 'activitiesByAccount', 'positionsByAccount']) expect([map, overview[map][manual.id]]).toEqual([map, []]);
    expect((await t.as(key).get(`/v1/activities?accountId=${manual.id}`).expect(200)).body).toEqual({ activities: [], total: 0 });
    expect((await t.as(key).get(`/v1/portfolio/snapshots?accountId=${manual.id}`).expect(200)).body).toEqual({ snapshots: [] });

    await t.as(key).patch(`/v1/accounts/${manual.id}/balance`, { current: 21000 }).expect(200);
    expect(((await t.as(key).get('/v1/brokerage/accounts').expect(200)).body.accounts[0] as { accountDetails: unknown }).accountDetails).toEqual({ id: manual.id, balance: '21000', lastSync: null });
    await t.as(key).delete(`/v1/accounts/${manual.id}`).expect(200);
    expect(((await t.as(key).get('/v1/brokerage/accounts').expect(200)).body.accounts as Array<{ id: string }>).map((account) => account.id)).not.toContain(manual.id);
    await t.as(key).get(`/v1/activities?accountId=${manual.id}`).expect(404);
  }, 120_000);
});
