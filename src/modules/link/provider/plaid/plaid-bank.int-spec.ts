import { startPlaidMock, type PlaidMock } from '../../../../../test/support/plaid-mock.js';
import { fixture } from '../../../../../test/support/recorded-api-server.js';
import { bankLinkContract } from '../../bank-link-contract.test-support.js';
import { BankLinkError, type BankLinkProvider, type BankLinkWebhookCode, type ProviderTransaction, type SyncPage } from '../../bank-link.port.js';
import { PlaidApiError } from './plaid-api-error.js';
import { createPlaidBank } from './plaid-bank.js';

const at = new Date('2026-11-20T10:00:00.000Z');
const clock = { now: () => at };
const WEBHOOK_URL = 'https://ledgerline.example/v1/webhooks/bank-link';
const expected = fixture<{ transactions: ProviderTransaction[] }>('plaid/expected-provider-transactions.json').transactions;
/** Which of Plaid's recorded webhooks says each code of the port. */
const WEBHOOK_FIXTURE: Readonly<Record<BankLinkWebhookCode, string>> = {
  SYNC_UPDATES_AVAILABLE: 'sync-updates-available',
  ITEM_LOGIN_REQUIRED: 'error-item-login-required',
  ERROR: 'error-institution-not-responding',
  LOGIN_REPAIRED: 'login-repaired',
  PENDING_DISCONNECT: 'pending-disconnect',
  PENDING_EXPIRATION: 'pending-expiration',
  NEW_ACCOUNTS_AVAILABLE: 'new-accounts-available',
};

let mock: PlaidMock;
let plaid: BankLinkProvider;

beforeAll(async () => {
  mock = await startPlaidMock({ now: clock.now });
  plaid = createPlaidBank({ clientId: mock.clientId, secret: mock.secret, basePath: mock.url, webhookUrl: WEBHOOK_URL, countryCodes: ['US'] });
});
afterAll(() => mock.close());

const linkItem = () => plaid.exchangePublicToken({ publicToken: mock.publicTokenForNewItem(), userId: 'user-1' });
const bodiesSentTo = (path: string) => mock.requests.filter((request) => request.path === path).map((request) => request.body as Record<string, unknown>);

bankLinkContract('Plaid over its recorded exchanges', () => ({
  provider: plaid,
  pageSize: 4,
  now: clock.now,
  newItemPublicToken: async () => mock.publicTokenForNewItem(),
  reconnectPublicToken: async (_userId, linkToken) => mock.publicTokenForUpdate(linkToken),
  expectedTransactions: async () => expected,
  requireLogin: async (item) => mock.requireLogin(item.itemId),
  repairLogin: async (item) => mock.repairLogin(item.itemId),
  signedWebhook: async (item, code, signedAt) => mock.signedWebhook(item.itemId, WEBHOOK_FIXTURE[code], signedAt),
}));

describe('the Plaid adapter', () => {
  it('asks Plaid with its credentials and API version, for a link token of the user, with the service’s webhook, two years of transactions; in update mode, the item’s access token and no products', async () => {
    await plaid.createLinkToken({ userId: 'user-7' });
    expect(bodiesSentTo('/link/token/create').at(-1)).toEqual({
      client_name: 'Ledgerline',
      language: 'en',
      country_codes: ['US'],
      user: { client_user_id: 'user-7' },
      webhook: WEBHOOK_URL,
      products: ['transactions'],
      transactions: { days_requested: 730 },
    });
    const item = await linkItem();
    await plaid.createLinkToken({ userId: 'user-1', reconnectItemId: item.itemId, reconnectAccessToken: item.accessToken });
    expect(bodiesSentTo('/link/token/create').at(-1)).toEqual({
      client_name: 'Ledgerline',
      language: 'en',
      country_codes: ['US'],
      user: { client_user_id: 'user-1' },
      webhook: WEBHOOK_URL,
      access_token: item.accessToken,
      update: { account_selection_enabled: true },
    });
    for (const request of mock.requests) expect([request.headers['plaid-client-id'], request.headers['plaid-secret'], request.headers['plaid-version']]).toEqual([mock.clientId, mock.secret, '2020-09-14']);
    await expect(plaid.createLinkToken({ userId: 'user-1', reconnectItemId: item.itemId })).rejects.toMatchObject({ code: 'ITEM_NOT_FOUND' });
    await plaid.removeItem(item.accessToken);
    await expect(plaid.createLinkToken({ userId: 'user-1', reconnectItemId: item.itemId, reconnectAccessToken: item.accessToken })).rejects.toMatchObject({ code: 'ITEM_NOT_FOUND' });
  });

  it('links an item with its institution’s name and address from Plaid, and no logo (Plaid’s is an image, not an address)', async () => {
    const item = await linkItem();
    expect(item.institution).toEqual({ id: 'ins_109508', name: 'First Platypus Bank', logo: null, url: 'https://www.platypus.example' });
    mock.failNext('/institutions/get_by_id', 'rate-limit-exceeded');
    expect((await linkItem()).institution).toEqual({ id: 'ins_109508', name: 'First Platypus Bank', logo: null, url: null });
  });

  it('answers TRANSACTIONS_SYNC_MUTATION_DURING_PAGINATION as PAGINATION_RESTART_REQUIRED; paging again from the first page’s cursor gives every transaction, the new one too', async () => {
    const item = await linkItem();
    const first = await plaid.syncTransactions({ accessToken: item.accessToken, count: 5 });
    expect(first.hasMore).toBe(true);
    const late = fixture<{ kind: 'added'; transaction: { transaction_id: string; account_id: string } }>('plaid/transactions-sync-late-update.json');
    mock.addUpdate(item.itemId, { kind: late.kind, transaction: late.transaction });
    const refused = await plaid.syncTransactions({ accessToken: item.accessToken, cursor: first.nextCursor, count: 5 }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(BankLinkError);
    expect(refused).toMatchObject({ code: 'PAGINATION_RESTART_REQUIRED' });

    const state = new Map<string, ProviderTransaction>();
    let cursor: string | undefined;
    for (;;) {
      const page: SyncPage = await plaid.syncTransactions({ accessToken: item.accessToken, cursor, count: 5 });
      for (const transaction of [...page.added, ...page.modified]) state.set(transaction.transactionId, transaction);
      for (const { transactionId } of page.removed) state.delete(transactionId);
      cursor = page.nextCursor;
      if (!page.hasMore) break;
    }
    expect([...state.keys()].sort()).toEqual([...expected.map((transaction) => transaction.transactionId), late.transaction.transaction_id].sort());
    expect(state.get(late.transaction.transaction_id)).toMatchObject({ amount: '-12.5', pending: true, categorySystemKey: 'FOOD_AND_DRINK_FAST_FOOD' });
  });

  it('answers ITEM_LOGIN_REQUIRED from the item’s calls while its user must log in again, and login_required as its status', async () => {
    const item = await linkItem();
    mock.requireLogin(item.itemId);
    await expect(plaid.getAccounts(item.accessToken)).rejects.toMatchObject({ code: 'ITEM_LOGIN_REQUIRED' });
    await expect(plaid.syncTransactions({ accessToken: item.accessToken })).rejects.toMatchObject({ code: 'ITEM_LOGIN_REQUIRED' });
    expect(await plaid.getItemStatus(item.accessToken)).toEqual({ status: 'login_required' });
  });

  it('leaves an error the port has no word for as Plaid’s (the job retries it), and never carries the secret', async () => {
    const item = await linkItem();
    mock.failNext('/transactions/sync', 'rate-limit-exceeded');
    const error = await plaid.syncTransactions({ accessToken: item.accessToken }).catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(PlaidApiError);
    expect(error).toMatchObject({ status: 429, errorType: 'RATE_LIMIT_EXCEEDED', errorCode: 'TRANSACTIONS_SYNC_LIMIT', requestId: 'HNTDNrA8F1shFEW' });
    const wrongSecret = createPlaidBank({ clientId: mock.clientId, secret: 'not-the-secret', basePath: mock.url, webhookUrl: WEBHOOK_URL, countryCodes: ['US'] });
    const refused = await wrongSecret.createLinkToken({ userId: 'user-1' }).catch((reason: unknown) => reason);
    expect(refused).toMatchObject({ errorCode: 'INVALID_API_KEYS', status: 400 });
    const everything = JSON.stringify(refused, Object.getOwnPropertyNames(refused)) + String((refused as Error).stack);
    expect(everything).not.toContain('not-the-secret');
    expect(everything).not.toContain(mock.secret);
    const unreachable = createPlaidBank({ clientId: mock.clientId, secret: mock.secret, basePath: 'http://127.0.0.1:9', webhookUrl: WEBHOOK_URL, countryCodes: ['US'], timeoutMs: 2000 });
    const down = await unreachable.getAccounts(item.accessToken).catch((reason: unknown) => reason);
    expect(down).toBeInstanceOf(PlaidApiError);
    expect(down).toMatchObject({ status: null });
    expect(JSON.stringify(down, Object.getOwnPropertyNames(down))).not.toContain(mock.secret);
  });

  it('verifies webhooks with Plaid’s key fetched once by its id and cached; a rotated-out key is refused once Plaid says it expired', async () => {
    const item = await linkItem();
    const keyFetches = () => mock.requests.filter((request) => request.path === '/webhook_verification_key/get').length;
    const before = keyFetches();
    for (const code of ['login-repaired', 'sync-updates-available', 'pending-expiration']) {
      const delivery = mock.signedWebhook(item.itemId, code, at);
      expect(await plaid.verifyWebhook(delivery.rawBody, delivery.headers, at)).toBe(true);
    }
    expect(keyFetches() - before).toBeLessThanOrEqual(1);

    const [oldKey] = mock.signingKeys().slice(-1);
    mock.rotateKey(at);
    const signedAfterRotation = mock.signedWebhook(item.itemId, 'login-repaired', at);
    expect(await plaid.verifyWebhook(signedAfterRotation.rawBody, signedAfterRotation.headers, at)).toBe(true);
    const signedWithOldKey = mock.signedWebhook(item.itemId, 'login-repaired', at, oldKey);
    expect(await plaid.verifyWebhook(signedWithOldKey.rawBody, signedWithOldKey.headers, at)).toBe(false);
  });
});
