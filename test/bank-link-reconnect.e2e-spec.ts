import { randomBytes } from 'node:crypto';
import { startTestApp, type TestApp } from './support/test-app.js';

const LINK_TOKEN_KEY = randomBytes(32).toString('base64');

describe('reconnecting a bank-link item (the provider’s update mode)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ env: { LINK_TOKEN_KEY } });
  }, 180_000);
  afterAll(() => t.close(), 180_000);

  it('clears login required and new accounts, adds the new account to the same item, and syncs with the new access token', async () => {
    const { key } = await t.newUser();
    const { publicToken } = (await t.as(key).post('/v1/sandbox/public-token', { institutionId: 'ins_100002' }).expect(200)).body as { publicToken: string };
    const item = (await t.as(key).post('/v1/link/items', { publicToken }).expect(201)).body as { id: string; linkItemId: string };
    await t.settle();
    const accountsBefore = (await t.as(key).get(`/v1/link/items/${item.linkItemId}/accounts`).expect(200)).body.accounts as { id: string }[];

    for (const code of ['ITEM_LOGIN_REQUIRED', 'NEW_ACCOUNTS_AVAILABLE']) {
      await t.as(key).post(`/v1/sandbox/link/items/${item.linkItemId}/fire-webhook`, { code }).expect(200, { success: true });
    }
    const alerts = (await t.as(key).get('/v1/link/items/alerts').expect(200)).body.alerts as { linkItemId: string; needsReauth: boolean; newAccountsAvailable: boolean }[];
    expect(alerts).toEqual([expect.objectContaining({ linkItemId: item.linkItemId, needsReauth: true, newAccountsAvailable: true })]);

    const { linkToken } = (await t.as(key).post('/v1/link/token', { reconnectLinkItemId: item.linkItemId }).expect(200)).body as { linkToken: string };
    const reconnectToken = (await t.as(key).post('/v1/sandbox/public-token', { linkToken }).expect(200)).body.publicToken as string;
    const reconnected = (await t.as(key).post('/v1/link/items', { publicToken: reconnectToken }).expect(201)).body as { id: string; linkItemId: string };
    expect(reconnected).toMatchObject({ id: item.id, linkItemId: item.linkItemId });

    expect((await t.as(key).get('/v1/link/items/alerts').expect(200)).body.alerts).toEqual([]);
    const accountsAfter = (await t.as(key).get(`/v1/link/items/${item.linkItemId}/accounts`).expect(200)).body.accounts as { id: string; linkItemId: string }[];
    expect(accountsAfter).toHaveLength(accountsBefore.length + 1);
    const added = accountsAfter.find((account) => !accountsBefore.some((before) => before.id === account.id))!;
    const shown = (await t.as(key).get(`/v1/accounts/${added.id}`).expect(200)).body as Record<string, unknown>;
    expect(shown).toMatchObject({ source: 'bank_link', linkItemId: item.linkItemId, newAccountsAvailable: false });
    for (const account of (await t.as(key).get('/v1/accounts').expect(200)).body.accounts as { linkItemId: string | null; newAccountsAvailable: boolean }[]) {
      if (account.linkItemId === item.linkItemId) expect(account.newAccountsAvailable).toBe(false);
    }

    // The service holds the new access token: a sync after the reconnect records no login required.
    await t.as(key).post(`/v1/link/items/${item.linkItemId}/sync`).expect(200);
    await t.settle();
    expect((await t.as(key).get('/v1/link/items/alerts').expect(200)).body.alerts).toEqual([]);
  }, 180_000);

  it('refuses a link token that is not one the provider issued', async () => {
    const { key } = await t.newUser();
    const response = await t.as(key).post('/v1/sandbox/public-token', { linkToken: 'link-sandbox-00000000-0000-4000-8000-000000000000' }).expect(400);
    expect(response.body).toMatchObject({ code: 'INVALID_LINK_TOKEN' });
  }, 60_000);
});
