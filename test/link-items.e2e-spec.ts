import { randomBytes } from 'node:crypto';
import { handleCommand } from '../src/infrastructure/event-store/handle-command.js';
import { linkItemDecider } from '../src/modules/link/link-items/link-item.decider.js';
import { linkItemStreamId } from '../src/modules/link/link-items/link-item.js';
import { createPersistentSandboxBank } from '../src/modules/link/provider/persistent-sandbox-bank.js';
import { AccessTokenSealer } from '../src/modules/link/provider/access-token-sealer.js';
import { startTestApp, type TestApp } from './support/test-app.js';

const LINK_TOKEN_KEY = randomBytes(32).toString('base64');

let first: TestApp;
let restarted: TestApp | null = null;

beforeAll(async () => {
  first = await startTestApp({ env: { LINK_TOKEN_KEY } });
});
afterAll(async () => {
  await restarted?.close();
  await first.close();
});

interface Listed {
  id: string;
  linkItemId: string | null;
  source: string;
  type: string;
  subtype: string | null;
  current: number | null;
  creditLimit: number | null;
  [field: string]: unknown;
}

async function linkAnItem(t: TestApp, key: string, institutionId = 'ins_100002') {
  const { publicToken } = (await t.as(key).post('/v1/sandbox/public-token', { institutionId }).expect(200)).body as { publicToken: string };
  const item = (await t.as(key).post('/v1/link/items', { publicToken }).expect(201)).body as { id: string; linkItemId: string; [field: string]: unknown };
  return { publicToken, item };
}

describe('bank link: the link flow and linked accounts', () => {
  it('links an item from a sandbox public token: the item, its accounts and the linked accounts in /accounts', async () => {
    const { key, userId } = await first.newUser();
    const token = (await first.as(key).post('/v1/link/token', {}).expect(200)).body;
    expect(token).toEqual({ linkToken: expect.any(String), expiration: expect.any(String) });
    expect(Date.parse(token.expiration)).toBeGreaterThan(Date.now());

    const { publicToken, item } = await linkAnItem(first, key);
    expect(item).toMatchObject({
      linkItemId: expect.any(String),
      userId,
      institutionId: 'ins_100002',
      institutionName: 'Summit Federal Credit Union',
      institutionLogo: expect.stringMatching(/^https:\/\//),
      availableProducts: expect.arrayContaining(['transactions']),
      billedProducts: ['transactions'],
      needsReauth: false,
      newAccountsAvailable: false,
      pendingDisconnectAt: null,
    });
    expect(item.id).toMatch(/^[0-9a-f-]{36}$/);
    expect((await first.as(key).get('/v1/link/items').expect(200)).body.items).toEqual([item]);
    expect((await first.as(key).get('/v1/link/items/alerts').expect(200)).body).toEqual({ alerts: [] });

    // A public token is spent by its exchange.
    expect((await first.as(key).post('/v1/link/items', { publicToken }).expect(400)).body).toEqual({ code: 'INVALID_PUBLIC_TOKEN', error: expect.any(String) });
    expect((await first.as(key).post('/v1/link/items', { publicToken: 'public-sandbox-made-up' }).expect(400)).body.code).toBe('INVALID_PUBLIC_TOKEN');

    const linkAccounts = (await first.as(key).get(`/v1/link/items/${encodeURIComponent(item.linkItemId)}/accounts`).expect(200)).body.accounts as Array<Record<string, unknown>>;
    expect(linkAccounts.map((account) => `${String(account.type)}/${String(account.subtype)}`).sort()).toEqual(['bank/checking', 'bank/savings', 'credit_card/credit card', 'loan/auto']);
    for (const account of linkAccounts) expect(account).toMatchObject({ linkItemId: item.linkItemId, linkAccountId: expect.any(String), name: expect.any(String) });

    const accounts = (await first.as(key).get('/v1/accounts').expect(200)).body.accounts as Listed[];
    expect(accounts.map((account) => account.id)).toEqual(linkAccounts.map((account) => account.id));
    for (const account of accounts) {
      expect(account).toMatchObject({
        source: 'bank_link',
        linkItemId: item.linkItemId,
        institutionName: 'Summit Federal Credit Union',
        logo: item.institutionLogo,
        url: expect.stringMatching(/^https:\/\//),
        mask: expect.stringMatching(/^\d{4}$/),
        needsReauth: false,
        newAccountsAvailable: false,
        pendingDisconnectAt: null,
      });
    }
    const bySubtype = (subtype: string) => accounts.find((account) => account.subtype === subtype) as Listed;
    const [checking, card, loan] = [bySubtype('checking'), bySubtype('credit card'), bySubtype('auto')];
    expect(checking.current).toBeGreaterThan(0);
    expect(card.current).toBeLessThanOrEqual(0);
    expect(card.creditLimit).toBeGreaterThan(0);
    expect(loan.current).toBeLessThan(0);
    expect(card.hasLiabilities).toBe(true);

    const detail = (await first.as(key).get(`/v1/accounts/${card.id}`).expect(200)).body;
    expect(detail).toMatchObject({ id: card.id, source: 'bank_link', linkItemId: item.linkItemId, institutionId: 'ins_100002', billedProducts: ['transactions'], current: card.current });
    expect(detail.available).toEqual(expect.any(Number));

    // A linked account is the provider's: no transactions typed in, no balance set by hand (DELETE disconnects it: bank-linked-accounts.e2e-spec).
    expect((await first.as(key).post('/v1/transactions', { accountId: checking.id, amount: -5, date: '2026-11-20', name: 'Coffee' }).expect(400)).body.code).toBe('ACCOUNT_NOT_MANUAL');
    expect((await first.as(key).patch(`/v1/accounts/${checking.id}/balance`, { current: 1 }).expect(400)).body.code).toBe('ACCOUNT_NOT_MANUAL');
    await first.as(key).get(`/v1/accounts/${checking.id}`).expect(200);

    // The user's own credit limit for a linked card sits beside the bank's.
    const overridden = (await first.as(key).patch(`/v1/accounts/${card.id}`, { creditLimit: 7000 }).expect(200)).body;
    expect(overridden).toMatchObject({ userOverrideCreditLimit: 7000, creditLimit: card.creditLimit, source: 'bank_link' });
    expect((await first.as(key).patch(`/v1/accounts/${card.id}`, { creditLimit: null }).expect(200)).body.userOverrideCreditLimit).toBeNull();
    expect((await first.as(key).patch(`/v1/accounts/${checking.id}`, { creditLimit: 100 }).expect(422)).body.error.issues[0].params).toEqual({ code: 'CREDIT_LIMIT_NOT_ALLOWED' });
  });

  it("shows the item's state on its alerts and accounts as its events record it", async () => {
    const { key, userId } = await first.newUser();
    const { item } = await linkAnItem(first, key, 'ins_100001');
    // The webhook increment will append these from provider webhooks; here they are appended directly.
    const record = async (command: Parameters<typeof linkItemDecider.decide>[0]) => {
      const outcome = await handleCommand(first.runtime.eventStore, linkItemStreamId(item.id), linkItemDecider, command, { userId, actor: 'system', requestId: 'webhook', now: new Date() }, 'Link item');
      await first.runtime.readYourWrites.waitFor(outcome.position, ['link-items', 'accounts']);
    };
    await record({ type: 'RecordLoginRequired', linkItemUuid: item.id, error: { errorCode: 'ITEM_LOGIN_REQUIRED', errorMessage: 'sign in again' } });
    await record({ type: 'RecordPendingDisconnect', linkItemUuid: item.id, disconnectAt: '2026-12-01T12:00:00.000Z' });
    await record({ type: 'RecordNewAccountsAvailable', linkItemUuid: item.id });
    const expected = { needsReauth: true, newAccountsAvailable: true, pendingDisconnectAt: '2026-12-01T12:00:00.000Z' };
    expect((await first.as(key).get('/v1/link/items/alerts').expect(200)).body.alerts).toEqual([
      { linkItemId: item.linkItemId, institutionName: 'Harbor Point Bank', institutionLogo: item.institutionLogo, ...expected },
    ]);
    expect((await first.as(key).get('/v1/link/items').expect(200)).body.items[0]).toMatchObject(expected);
    for (const account of (await first.as(key).get('/v1/accounts').expect(200)).body.accounts as Listed[]) expect(account).toMatchObject(expected);

    await record({ type: 'RecordLoginRepaired', linkItemUuid: item.id });
    expect((await first.as(key).get('/v1/link/items/alerts').expect(200)).body.alerts[0]).toMatchObject({ needsReauth: false, newAccountsAvailable: true });
    const [account] = (await first.as(key).get('/v1/accounts').expect(200)).body.accounts as Listed[];
    expect(account.needsReauth).toBe(false);
    expect((await first.as(key).get(`/v1/accounts/${account.id}`).expect(200)).body).toMatchObject({ newAccountsAvailable: true, pendingDisconnectAt: '2026-12-01T12:00:00.000Z' });
  });

  it('disconnects an item: it and its accounts leave every list, and doing it again is a no-op', async () => {
    const { key } = await first.newUser();
    const manual = (await first.as(key).post('/v1/accounts', { name: 'Cash', type: 'bank', subtype: 'checking', currentBalance: 10 }).expect(201)).body.id;
    const { item } = await linkAnItem(first, key, 'ins_100004');
    const path = `/v1/link/items/${encodeURIComponent(item.linkItemId)}`;
    expect((await first.as(key).get('/v1/accounts').expect(200)).body.accounts).toHaveLength(5);
    const linkedIds = ((await first.as(key).get(`${path}/accounts`).expect(200)).body.accounts as Array<{ id: string }>).map((account) => account.id);

    expect((await first.as(key).delete(path).expect(200)).body).toEqual({ success: true, message: 'Link item disconnected' });
    expect(((await first.as(key).get('/v1/accounts').expect(200)).body.accounts as Listed[]).map((account) => account.id)).toEqual([manual]);
    await first.as(key).get(`/v1/accounts/${linkedIds[0]}`).expect(404);
    expect((await first.as(key).get('/v1/link/items').expect(200)).body.items).toEqual([]);
    await first.as(key).get(`${path}/accounts`).expect(404);
    expect((await first.as(key).delete(path).expect(200)).body).toEqual({ success: true, message: 'Nothing to disconnect: the item is already disconnected' });
    // The provider forgot the item too.
    const credentials = await first.runtime.database.db.selectFrom('link_item_credentials').selectAll().where('link_item_id', '=', item.linkItemId).execute();
    expect(credentials).toEqual([]);
    const removed = await first.runtime.database.db.selectFrom('sandbox_bank_items').select('removed_at').where('item_id', '=', item.linkItemId).executeTakeFirstOrThrow();
    expect(removed.removed_at).toBeInstanceOf(Date);
  });

  it("keeps another user's items out of reach, and refuses an unknown institution or reconnect", async () => {
    const a = await first.newUser();
    const b = await first.newUser();
    const { item } = await linkAnItem(first, a.key);
    const path = `/v1/link/items/${encodeURIComponent(item.linkItemId)}`;
    expect((await first.as(b.key).get(`${path}/accounts`).expect(404)).body.code).toBe('NOT_FOUND');
    expect((await first.as(b.key).delete(path).expect(404)).body.code).toBe('NOT_FOUND');
    expect((await first.as(b.key).post('/v1/link/token', { reconnectLinkItemId: item.linkItemId }).expect(404)).body.code).toBe('NOT_FOUND');
    expect((await first.as(b.key).get('/v1/link/items').expect(200)).body.items).toEqual([]);
    expect((await first.as(a.key).post('/v1/link/token', { reconnectLinkItemId: item.linkItemId }).expect(200)).body.linkToken).toEqual(expect.any(String));
    expect((await first.as(a.key).get('/v1/link/items').expect(200)).body.items).toHaveLength(1);
    expect((await first.as(a.key).post('/v1/sandbox/public-token', { institutionId: 'ins_999' }).expect(400)).body.code).toBe('INSTITUTION_NOT_FOUND');
    await first.as(a.key).get('/v1/link/items/%20/accounts').expect(404);
  });

  it('keeps the item, its accounts and the provider’s memory of it across a restart on the same database', async () => {
    const { key } = await first.newUser();
    const { item } = await linkAnItem(first, key, 'ins_100005');
    const accountsBefore = (await first.as(key).get('/v1/accounts').expect(200)).body.accounts;
    const unusedPublicToken = (await first.as(key).post('/v1/sandbox/public-token', {}).expect(200)).body.publicToken as string;

    // Nothing secret is kept in clear: the service's token is sealed, the sandbox's are hashes.
    const db = first.runtime.database.db;
    const credentials = await db.selectFrom('link_item_credentials').selectAll().where('link_item_id', '=', item.linkItemId).executeTakeFirstOrThrow();
    const accessToken = new AccessTokenSealer(Buffer.from(LINK_TOKEN_KEY, 'base64')).open(credentials.sealed_access_token, 'sandbox', item.linkItemId);
    expect(credentials.sealed_access_token.includes(Buffer.from(accessToken))).toBe(false);
    const stored = JSON.stringify(await db.selectFrom('sandbox_bank_items').selectAll().execute()) + JSON.stringify(await db.selectFrom('sandbox_bank_public_tokens').selectAll().execute());
    expect(stored).not.toContain(accessToken);
    expect(stored).not.toContain(unusedPublicToken);

    restarted = await startTestApp({ env: { DATABASE_URL: first.runtime.database.url, LINK_TOKEN_KEY } });
    await first.app.close();
    await first.runtime.close();

    expect((await restarted.as(key).get('/v1/link/items').expect(200)).body.items).toEqual([item]);
    expect((await restarted.as(key).get('/v1/accounts').expect(200)).body.accounts).toEqual(accountsBefore);
    const provider = createPersistentSandboxBank(restarted.runtime.database.db, { clock: { now: () => new Date() }, webhookSecret: randomBytes(32) });
    expect(await provider.getItemStatus(accessToken)).toEqual({ status: 'ok' });
    const page = await provider.syncTransactions({ accessToken, count: 5 });
    expect(page.added.length + page.modified.length + page.removed.length).toBeGreaterThan(0);
    // A public token handed out before the restart is still good once, after it.
    await restarted.as(key).post('/v1/link/items', { publicToken: unusedPublicToken }).expect(201);
    await restarted.as(key).post('/v1/link/items', { publicToken: unusedPublicToken }).expect(400);
    expect((await restarted.as(key).get('/v1/link/items').expect(200)).body.items).toHaveLength(2);
    expect((await restarted.as(key).post('/v1/link/token', { reconnectLinkItemId: item.linkItemId }).expect(200)).body.linkToken).toEqual(expect.any(String));
  });
});

describe('bank link with no provider configured', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ env: { BANK_LINK_PROVIDER: 'none', LINK_TOKEN_KEY } });
  });
  afterAll(() => t.close());

  it('serves no sandbox operation and links nothing', async () => {
    const { key } = await t.newUser();
    expect((await t.as(key).post('/v1/sandbox/public-token', {}).expect(404)).body.code).toBe('NOT_FOUND');
    expect((await t.as(key).post('/v1/link/token', {}).expect(400)).body.code).toBe('BANK_LINK_NOT_CONFIGURED');
    expect((await t.as(key).get('/v1/link/items').expect(200)).body).toEqual({ items: [] });
  });
});
