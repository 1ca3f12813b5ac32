import { randomBytes } from 'node:crypto';
import { linkItemStreamId } from '../src/modules/link/link-items/link-item.js';
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

  it("binds link and public tokens to the user who asked for them: another user's → 400, and nothing changes for their owner", async () => {
    const alice = await t.newUser();
    const { publicToken } = (await t.as(alice.key).post('/v1/sandbox/public-token', { institutionId: 'ins_100003' }).expect(200)).body as { publicToken: string };
    const item = (await t.as(alice.key).post('/v1/link/items', { publicToken }).expect(201)).body as { id: string; linkItemId: string };
    await t.settle();
    const db = t.runtime.database.db;
    /** Everything the provider and the service keep about Alice's item. */
    const aliceItem = async () => ({
      atProvider: await db.selectFrom('sandbox_bank_items').selectAll().where('item_id', '=', item.linkItemId).executeTakeFirstOrThrow(),
      credentials: await db.selectFrom('link_item_credentials').selectAll().where('link_item_id', '=', item.linkItemId).execute(),
      events: (await t.runtime.eventStore.readStream(linkItemStreamId(item.id))).map((event) => event.id),
    });
    const before = await aliceItem();

    const bob = await t.newUser();
    const { linkToken } = (await t.as(alice.key).post('/v1/link/token', { reconnectLinkItemId: item.linkItemId }).expect(200)).body as { linkToken: string };
    const stolenLinkToken = await t.as(bob.key).post('/v1/sandbox/public-token', { linkToken }).expect(400);
    expect(stolenLinkToken.body).toEqual({ code: 'INVALID_LINK_TOKEN', error: expect.any(String) });
    const { linkToken: newLinkToken } = (await t.as(alice.key).post('/v1/link/token', {}).expect(200)).body as { linkToken: string };
    expect((await t.as(bob.key).post('/v1/sandbox/public-token', { linkToken: newLinkToken }).expect(400)).body.code).toBe('INVALID_LINK_TOKEN');

    // Alice's reconnect public token, exchanged by Bob: refused before the provider does anything.
    const reconnectToken = (await t.as(alice.key).post('/v1/sandbox/public-token', { linkToken }).expect(200)).body.publicToken as string;
    const stolenReconnect = await t.as(bob.key).post('/v1/link/items', { publicToken: reconnectToken }).expect(400);
    expect(stolenReconnect.body).toEqual({ code: 'INVALID_PUBLIC_TOKEN', error: expect.any(String) });
    const newItemToken = (await t.as(alice.key).post('/v1/sandbox/public-token', { institutionId: 'ins_100001' }).expect(200)).body.publicToken as string;
    expect((await t.as(bob.key).post('/v1/link/items', { publicToken: newItemToken }).expect(400)).body.code).toBe('INVALID_PUBLIC_TOKEN');
    await t.settle();
    expect(await aliceItem()).toEqual(before);
    expect((await t.as(bob.key).get('/v1/link/items').expect(200)).body.items).toEqual([]);
    expect((await t.as(bob.key).get('/v1/accounts').expect(200)).body.accounts).toEqual([]);

    // Bob's attempts spent nothing of Alice's: her tokens still work, and her item still syncs.
    expect((await t.as(alice.key).post('/v1/link/items', { publicToken: reconnectToken }).expect(201)).body).toMatchObject({ id: item.id });
    await t.as(alice.key).post('/v1/link/items', { publicToken: newItemToken }).expect(201);
    await t.as(alice.key).post(`/v1/link/items/${item.linkItemId}/sync`).expect(200);
    await t.settle();
    expect((await t.as(alice.key).get('/v1/link/items/alerts').expect(200)).body.alerts).toEqual([]);
  }, 180_000);

  it('refuses a link token that is not one the provider issued', async () => {
    const { key } = await t.newUser();
    const response = await t.as(key).post('/v1/sandbox/public-token', { linkToken: 'link-sandbox-00000000-0000-4000-8000-000000000000' }).expect(400);
    expect(response.body).toMatchObject({ code: 'INVALID_LINK_TOKEN' });
  }, 60_000);
});
