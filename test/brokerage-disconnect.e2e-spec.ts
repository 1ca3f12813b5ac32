import { sql } from 'kysely';
import request from 'supertest';
import { BROKERAGE_SCHEDULED_SYNC_JOB } from '../src/modules/brokerage/sync/scheduled-brokerage-sync.job.js';
import { startTestApp, type TestApp } from './support/test-app.js';

const DAY = 86_400_000;
let now = Date.parse('2026-10-07T14:00:00.000Z');

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ clock: { now: () => new Date(now) }, env: { BROKERAGE_SYNC_INTERVAL_MINUTES: '0' } });
}, 180_000);
afterAll(() => t.close(), 180_000);

interface Listed {
  id: string;
  source: string;
  brokerageAuthorizationId: string | null;
}

/** The portal opened by the browser (no credential), as a user connects: the authorization it names. */
async function connect(key: string, body: Record<string, string> = {}): Promise<string> {
  const redirectUrl = new URL((await t.as(key).post('/v1/brokerage/connect', body).expect(200)).body.redirectUrl);
  const portal = await request(t.server).get(`${redirectUrl.pathname}${redirectUrl.search}`).redirects(0).expect(302);
  await t.settle();
  return new URL(portal.headers.location as string).searchParams.get('brokerageAuthorizationId') as string;
}

const brokerageAccounts = async (key: string): Promise<Listed[]> => (await t.as(key).get('/v1/brokerage/accounts').expect(200)).body.accounts;
const accountIdsOf = async (key: string): Promise<string[]> => ((await t.as(key).get('/v1/accounts').expect(200)).body.accounts as Listed[]).map((account) => account.id);

/** Events appended to an account's own stream (what a sync writes), counted in the store. */
async function eventsOfAccount(accountId: string): Promise<number> {
  const { rows } = await sql<{ count: string }>`SELECT count(*) AS count FROM events WHERE stream_id = ${`brokerage-account-${accountId}`}`.execute(t.runtime.database.db);
  return Number(rows[0]!.count);
}

describe('disconnecting brokerage accounts and connections', () => {
  it('DELETE /accounts/{id} on a brokerage account: it leaves every view at once, syncs and reconnects leave it out; its last sibling takes the connection with it', async () => {
    const { key } = await t.newUser();
    const authorizationId = await connect(key);
    const [first, second] = await brokerageAccounts(key);
    expect([first?.source, second?.source]).toEqual(['brokerage_link', 'brokerage_link']);
    const totalBefore = (await t.as(key).get('/v1/activities').expect(200)).body.total as number;
    const firstActivities = (await t.as(key).get(`/v1/activities?accountId=${first!.id}`).expect(200)).body.total as number;
    expect(firstActivities).toBeGreaterThan(0);

    expect((await t.as(key).delete(`/v1/accounts/${first!.id}`).expect(200)).body).toEqual({ success: true, message: 'Account removed' });
    expect((await brokerageAccounts(key)).map((account) => account.id)).toEqual([second!.id]);
    expect(await accountIdsOf(key)).toEqual([second!.id]);
    await t.as(key).get(`/v1/accounts/${first!.id}`).expect(404);
    const overview = (await t.as(key).get('/v1/brokerage/overview').expect(200)).body;
    expect(overview.accounts.map((account: Listed) => account.id)).toEqual([second!.id]);
    expect(Object.keys(overview.positionsByAccount)).toEqual([second!.id]);
    for (const list of ['balances', 'activities', 'positions', 'portfolioSnapshots']) expect([list, overview[list].filter((item: { accountId: string }) => item.accountId === first!.id)]).toEqual([list, []]);
    for (const path of ['/v1/activities', '/v1/portfolio/snapshots']) await t.as(key).get(`${path}?accountId=${first!.id}`).expect(404);
    expect((await t.as(key).get('/v1/activities').expect(200)).body.total).toBe(totalBefore - firstActivities);
    expect(((await t.as(key).get('/v1/portfolio/snapshots').expect(200)).body.snapshots as Array<{ accountId: string }>).every((snapshot) => snapshot.accountId === second!.id)).toBe(true);

    // A day on, the scheduled sync brings the other account's day and nothing of the removed one's.
    const [firstEvents, secondEvents] = [await eventsOfAccount(first!.id), await eventsOfAccount(second!.id)];
    now += DAY;
    await t.runtime.jobs.enqueue(BROKERAGE_SCHEDULED_SYNC_JOB, {}, { jobId: 'scheduled-by-the-test' });
    await t.settle();
    expect(await eventsOfAccount(first!.id)).toBe(firstEvents);
    expect(await eventsOfAccount(second!.id)).toBeGreaterThan(secondEvents);
    // Reconnecting the same connection through the portal does not bring it back.
    await t.as(key).post(`/v1/sandbox/brokerage/authorizations/${encodeURIComponent(authorizationId)}/disable`).expect(200);
    expect(await connect(key, { reconnectAuthorizationId: authorizationId })).toBe(authorizationId);
    expect((await brokerageAccounts(key)).map((account) => [account.id, account.brokerageAuthorizationId])).toEqual([[second!.id, authorizationId]]);

    const last = (await t.as(key).delete(`/v1/accounts/${second!.id}`).expect(200)).body;
    expect(last).toEqual({ success: true, message: 'Account removed, and its connection with it (it was the last account)' });
    expect(await brokerageAccounts(key)).toEqual([]);
    expect((await t.as(key).get('/v1/brokerage/overview').expect(200)).body.userBrokerages).toEqual([]);
    // The connection is gone: it cannot be reconnected, disabled or disconnected again (idempotent success).
    await t.as(key).post('/v1/brokerage/connect', { reconnectAuthorizationId: authorizationId }).expect(404);
    await t.as(key).post(`/v1/sandbox/brokerage/authorizations/${encodeURIComponent(authorizationId)}/disable`).expect(404);
    expect((await t.as(key).delete(`/v1/brokerage/authorizations/${encodeURIComponent(authorizationId)}`).expect(200)).body.message).toBe('Nothing to disconnect: the connection is already disconnected');
  }, 300_000);

  it('DELETE /brokerage/authorizations/{id}: the connection and its accounts leave every list, the provider and the schedule forget it; again: success; not yours: 404', async () => {
    const { key, userId } = await t.newUser();
    const manual = (await t.as(key).post('/v1/accounts', { name: 'Old IRA', type: 'investment', subtype: 'ira', currentBalance: 100 }).expect(201)).body.id as string;
    const kept = await connect(key);
    const gone = await connect(key);
    expect(gone).not.toBe(kept);
    const goneAccounts = (await brokerageAccounts(key)).filter((account) => account.brokerageAuthorizationId === gone);
    expect(goneAccounts).toHaveLength(2);

    const other = await t.newUser();
    expect((await t.as(other.key).delete(`/v1/brokerage/authorizations/${encodeURIComponent(gone)}`).expect(404)).body).toEqual({ code: 'NOT_FOUND', error: 'Brokerage authorization not found' });
    await t.as(key).delete('/v1/brokerage/authorizations/no-such-authorization').expect(404);

    expect((await t.as(key).delete(`/v1/brokerage/authorizations/${encodeURIComponent(gone)}`).expect(200)).body).toEqual({ success: true, message: 'Brokerage connection disconnected' });
    const remaining = await brokerageAccounts(key);
    expect(remaining.map((account) => account.brokerageAuthorizationId ?? account.source).sort()).toEqual([kept, kept, 'manual'].sort());
    expect((await accountIdsOf(key)).filter((id) => goneAccounts.some((account) => account.id === id))).toEqual([]);
    for (const account of goneAccounts) {
      for (const path of ['/v1/activities', '/v1/portfolio/snapshots']) await t.as(key).get(`${path}?accountId=${account.id}`).expect(404);
    }
    expect(remaining.map((account) => account.id)).toContain(manual);
    const scheduled = await t.runtime.database.db.selectFrom('brokerage_link_authorizations').select('brokerage_authorization_id').where('user_id', '=', userId).execute();
    expect(scheduled.map((row) => row.brokerage_authorization_id)).toEqual([kept]);
    const atProvider = await t.runtime.database.db.selectFrom('sandbox_brokerage_authorizations').select(['authorization_id', 'removed_at']).where('authorization_id', '=', gone).executeTakeFirstOrThrow();
    expect(atProvider.removed_at).not.toBeNull();
    expect((await t.as(key).delete(`/v1/brokerage/authorizations/${encodeURIComponent(gone)}`).expect(200)).body.message).toBe('Nothing to disconnect: the connection is already disconnected');
  }, 300_000);
});
