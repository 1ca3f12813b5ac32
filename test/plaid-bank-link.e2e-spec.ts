import { randomBytes } from 'node:crypto';
import type { JobDefinition } from '../src/infrastructure/jobs/job.js';
import { createBankLink, type BankLink } from '../src/modules/link/bank-link.wiring.js';
import { BANK_LINK_SYNC_JOB, bankLinkSyncJob, type BankLinkSyncHooks } from '../src/modules/link/sync/bank-link-sync.job.js';
import { importedTransactionIdOf } from '../src/modules/link/sync/provider-transaction.mapping.js';
import { serviceJobs } from '../src/service-jobs.js';
import { startPlaidMock, type PlaidMock } from './support/plaid-mock.js';
import { fixture } from './support/recorded-api-server.js';
import { startTestApp, type TestApp } from './support/test-app.js';

const LINK_TOKEN_KEY = randomBytes(32).toString('base64');

/** The service's jobs, with the bank-link sync observable after each page it applies. */
function jobsWith(hooks: BankLinkSyncHooks): typeof serviceJobs {
  return (runtime) => {
    let bankLink: Promise<BankLink> | undefined;
    const hooked = bankLinkSyncJob({ ...runtime, bankLink: () => (bankLink ??= createBankLink(runtime.config, runtime.database.db, runtime.clock)) }, hooks) as JobDefinition<never>;
    return serviceJobs(runtime).map((job) => (job.name === BANK_LINK_SYNC_JOB ? hooked : job));
  };
}

interface Listed {
  readonly id: string;
  readonly amount: number;
  readonly name: string;
  readonly source: string;
  readonly pending: boolean;
  readonly category: { systemKey: string | null } | null;
}

describe('the service on Plaid (BANK_LINK_PROVIDER=plaid, over the recorded exchanges)', () => {
  let t: TestApp;
  let mock: PlaidMock;
  let afterPageApplied: BankLinkSyncHooks['afterPageApplied'];
  beforeAll(async () => {
    mock = await startPlaidMock();
    t = await startTestApp({
      env: { LINK_TOKEN_KEY, BANK_LINK_PROVIDER: 'plaid', PLAID_CLIENT_ID: mock.clientId, PLAID_SECRET: mock.secret, PLAID_ENV: 'sandbox', PLAID_BASE_URL: mock.url, PUBLIC_URL: 'https://ledgerline.example', RECURRING_REFRESH_DEBOUNCE_MS: '0' },
      jobs: jobsWith({ afterPageApplied: (page, n) => afterPageApplied?.(page, n) }),
    });
  }, 180_000);
  afterAll(async () => {
    await t.close();
    await mock.close();
  }, 180_000);

  async function allTransactions(key: string): Promise<Listed[]> {
    return ((await t.as(key).get('/v1/transactions?limit=500').expect(200)).body as { transactions: Listed[] }).transactions;
  }

  async function linkItem(key: string): Promise<{ linkItemId: string }> {
    const token = (await t.as(key).post('/v1/link/token', {}).expect(200)).body as { linkToken: string; expiration: string };
    expect(token.linkToken).toMatch(/^link-sandbox-/);
    const item = (await t.as(key).post('/v1/link/items', { publicToken: mock.publicTokenForNewItem() }).expect(201)).body as { linkItemId: string };
    await t.settle();
    return item;
  }

  it('links an item through Plaid and lists its transactions signed from the holder’s side, and its accounts’ balances', async () => {
    const { key, userId } = await t.newUser();
    const item = await linkItem(key);
    const linkTokenRequest = mock.requests.filter((request) => request.path === '/link/token/create').at(-1)!.body as Record<string, unknown>;
    expect(linkTokenRequest).toMatchObject({ user: { client_user_id: userId }, webhook: 'https://ledgerline.example/v1/webhooks/bank-link', products: ['transactions'] });

    const listed = await allTransactions(key);
    const expected = fixture<{ transactions: { transactionId: string }[] }>('plaid/expected-provider-transactions.json').transactions;
    expect(listed).toHaveLength(expected.length);
    expect(listed.every((transaction) => transaction.source === 'bank_link')).toBe(true);
    const byName = (name: string) => listed.find((transaction) => transaction.name === name)!;
    expect(byName('GUSTO PAY 123456 PPD ID: 1234567890')).toMatchObject({ amount: 2500, category: { systemKey: 'INCOME_WAGES' } });
    expect(byName('ONLINE TRANSFER TO PARKVIEW APTS')).toMatchObject({ amount: -1850, category: { systemKey: 'RENT_AND_UTILITIES_RENT' } });
    expect(byName('AMAZON.COM*RT4KL2 REFUND')).toMatchObject({ amount: 25 });
    expect(byName('Dd Doordash Burgerkin')).toMatchObject({ amount: -31.02, pending: true });

    const accounts = ((await t.as(key).get('/v1/accounts').expect(200)).body as { accounts: { name: string; type: string; current: number | null; linkItemId: string | null }[] }).accounts;
    expect(accounts.filter((account) => account.linkItemId === item.linkItemId).map((account) => [account.name, account.type, account.current])).toEqual(
      expect.arrayContaining([
        ['Plaid Checking', 'bank', 2283.47],
        ['Plaid Credit Card', 'credit_card', -410.13],
        ['Plaid Student Loan', 'loan', -65262],
      ]),
    );
  });

  it('takes Plaid’s signed webhooks at POST /v1/webhooks/bank-link: a login required shows on the item; the same delivery again changes nothing; a tampered one is 401', async () => {
    const { key } = await t.newUser();
    const { linkItemId } = await linkItem(key);
    const delivery = mock.signedWebhook(linkItemId, 'error-item-login-required', new Date());
    const send = (rawBody: string, headers: Record<string, string>) => t.as('').post('/v1/webhooks/bank-link').set(headers).send(rawBody);
    expect((await send(delivery.rawBody, delivery.headers).expect(200)).body).toEqual({ success: true, message: 'Webhook received' });
    // The receiver answers Plaid at once; the read models follow.
    await t.settle();
    const alerts = ((await t.as(key).get('/v1/link/items/alerts').expect(200)).body as { alerts: { linkItemId: string; needsReauth: boolean }[] }).alerts;
    expect(alerts).toEqual([expect.objectContaining({ linkItemId, needsReauth: true })]);
    expect((await send(delivery.rawBody, delivery.headers).expect(200)).body).toEqual({ success: true, message: 'Webhook already received: nothing done again' });
    await send(delivery.rawBody.replace('ITEM_LOGIN_REQUIRED', 'ITEM_LOCKED'), delivery.headers).expect(401);

    const repaired = mock.signedWebhook(linkItemId, 'login-repaired', new Date());
    await send(repaired.rawBody, repaired.headers).expect(200);
    await t.settle();
    expect(((await t.as(key).get('/v1/link/items/alerts').expect(200)).body as { alerts: unknown[] }).alerts).toEqual([]);
  });

  it('pages again from the cursor the last sync ended on when Plaid’s data moves during a sync, and lists each transaction once', async () => {
    const { key, userId } = await t.newUser();
    const { linkItemId } = await linkItem(key);
    const syncCursors = () =>
      mock.requests
        .filter((request) => request.path === '/transactions/sync' && mock.itemIdOf((request.body as { access_token: string }).access_token) === linkItemId)
        .map((request) => (request.body as { cursor?: string }).cursor ?? null);
    const firstSync = syncCursors().length;

    const purchases = mock.addPurchases(linkItemId, 1100);
    const late = fixture<{ kind: 'added'; transaction: { transaction_id: string; account_id: string } }>('plaid/transactions-sync-late-update.json');
    afterPageApplied = (_page, pageNumber) => {
      // Plaid adds a transaction while the sync is on its first page: a later page is refused.
      if (pageNumber === 1) {
        afterPageApplied = undefined;
        mock.addUpdate(linkItemId, { kind: late.kind, transaction: late.transaction });
      }
    };
    await t.as(key).post(`/v1/link/items/${linkItemId}/sync`, {}).expect(200);
    await t.settle();
    afterPageApplied = undefined;

    const cursors = syncCursors().slice(firstSync);
    // The first sync's last cursor, asked with twice: the paging, then the paging again after the mutation; never from the start.
    expect(cursors.filter((cursor) => cursor === cursors[0])).toHaveLength(2);
    expect(cursors).not.toContain(null);
    const expected = fixture<{ transactions: { transactionId: string }[] }>('plaid/expected-provider-transactions.json').transactions.map((transaction) => transaction.transactionId);
    const wanted = [...expected, ...purchases, late.transaction.transaction_id].map((id) => importedTransactionIdOf(userId, linkItemId, id)).sort();
    const rows = await t.runtime.database.db.selectFrom('transactions').select('id').where('user_id', '=', userId).orderBy('id').execute();
    expect(rows.map((row) => row.id)).toEqual(wanted);
  }, 120_000);
});
