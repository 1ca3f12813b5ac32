import { SYSTEM_TAXONOMY } from '../categories/system-taxonomy.js';
import { BANK_LINK_WEBHOOK_CODES, BankLinkError, type BankLinkProvider, type BankLinkWebhookCode, type ExchangedItem, type ProviderTransaction, type SyncPage } from './bank-link.port.js';

/** What the contract needs of a provider besides the port: the controls its own sandbox offers. */
export interface BankLinkHarness {
  readonly provider: BankLinkProvider;
  /** Changes a full sync pages through at a time: small enough to make several pages of the provider's item. */
  readonly pageSize: number;
  /** The provider's clock: its tokens expire and its webhooks are signed by it. */
  now(): Date;
  /** The public token the link flow hands the browser of `userId` once they link a new item. */
  newItemPublicToken(userId: string): Promise<string>;
  /** The public token the link flow hands back in update mode, opened with `linkToken` (the user logs in again). */
  reconnectPublicToken(userId: string, linkToken: string): Promise<string>;
  /** Every transaction the item has now: what a full sync must give. */
  expectedTransactions(item: ExchangedItem): Promise<readonly ProviderTransaction[]>;
  /** The item needs its user to log in again / works again without them. */
  requireLogin(item: ExchangedItem): Promise<void>;
  repairLogin(item: ExchangedItem): Promise<void>;
  /** A delivery the provider signed at `at`, saying `code` of the item. */
  signedWebhook(item: ExchangedItem, code: BankLinkWebhookCode, at: Date): Promise<{ rawBody: string; headers: Record<string, string> }>;
}

const USER = 'contract-user-1';
const categoryKeys = new Set(SYSTEM_TAXONOMY.flatMap((group) => group.categories.map((category) => category.systemKey)));
const DECIMAL = /^-?\d+(\.\d+)?$/;
const ISO_DAY = /^\d{4}-\d{2}-\d{2}$/;

const expectBankLinkError = async (promise: Promise<unknown>, code: string): Promise<void> => {
  const error = await promise.then(
    () => null,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(BankLinkError);
  expect(error).toMatchObject({ code });
};

/** Pages to the end from `cursor`, applying each page; the cursor the last page ended on. */
async function drain(provider: BankLinkProvider, accessToken: string, count: number, state: Map<string, ProviderTransaction>, cursor?: string): Promise<{ cursor: string; pages: number }> {
  let pages = 0;
  for (;;) {
    const page: SyncPage = await provider.syncTransactions({ accessToken, cursor, count });
    pages += 1;
    const named = [...page.added, ...page.modified].map((transaction) => transaction.transactionId).concat(page.removed.map((removed) => removed.transactionId));
    expect(new Set(named).size).toBe(named.length);
    for (const transaction of [...page.added, ...page.modified]) state.set(transaction.transactionId, transaction);
    for (const { transactionId } of page.removed) state.delete(transactionId);
    cursor = page.nextCursor;
    if (!page.hasMore) return { cursor, pages };
  }
}

function expectPortShaped(transaction: ProviderTransaction, accountIds: readonly string[]): void {
  expect(accountIds).toContain(transaction.accountId);
  expect(transaction.amount).toMatch(DECIMAL);
  expect(transaction.isoCurrencyCode).toMatch(/^[A-Z]{3}$/);
  expect(transaction.date).toMatch(ISO_DAY);
  if (transaction.authorizedDate !== null) expect(transaction.authorizedDate).toMatch(ISO_DAY);
  expect(['in store', 'online', 'other']).toContain(transaction.paymentChannel);
  if (transaction.categorySystemKey !== null) expect(categoryKeys.has(transaction.categorySystemKey)).toBe(true);
  expect(transaction.name.length).toBeGreaterThan(0);
}

/**
 * The behaviour every bank-link adapter shows, whatever the provider behind it: the sandbox (over
 * PostgreSQL) and Plaid (over its recorded HTTP exchanges) both run it.
 */
export function bankLinkContract(name: string, harness: () => BankLinkHarness): void {
  describe(`${name}: bank-link port contract`, () => {
    const link = async (userId = USER): Promise<ExchangedItem> => {
      const { provider, newItemPublicToken } = harness();
      return provider.exchangePublicToken({ publicToken: await newItemPublicToken(userId), userId });
    };

    it('issues a link token with its expiration, and one that opens an item of the user’s again', async () => {
      const { provider, now } = harness();
      const token = await provider.createLinkToken({ userId: USER });
      expect(token.linkToken.length).toBeGreaterThan(0);
      expect(new Date(token.expiration).toISOString()).toBe(token.expiration);
      expect(Date.parse(token.expiration)).toBeGreaterThan(now().getTime());
      const item = await link();
      await expect(provider.createLinkToken({ userId: USER, reconnectItemId: item.itemId, reconnectAccessToken: item.accessToken })).resolves.toHaveProperty('linkToken');
    });

    it('exchanges a public token once, for the item, its institution and its accounts as the port describes them', async () => {
      const { provider, newItemPublicToken } = harness();
      const publicToken = await newItemPublicToken(USER);
      const item = await provider.exchangePublicToken({ publicToken, userId: USER });
      expect(item.itemId.length).toBeGreaterThan(0);
      expect(item.accessToken.length).toBeGreaterThan(0);
      expect(item.institution).toEqual({ id: expect.any(String), name: expect.any(String), logo: item.institution.logo, url: item.institution.url });
      expect(item.accounts.length).toBeGreaterThan(0);
      for (const account of item.accounts) {
        expect(['depository', 'credit', 'loan', 'investment']).toContain(account.type);
        expect(account.currency).toMatch(/^[A-Z]{3}$/);
        for (const amount of [account.balances.current, account.balances.available, account.balances.limit]) if (amount !== null) expect(amount).toMatch(DECIMAL);
        // Liabilities are signed from the holder's side: what is owed is negative.
        if ((account.type === 'credit' || account.type === 'loan') && account.balances.current !== null && account.balances.current !== '0') expect(account.balances.current.startsWith('-')).toBe(true);
      }
      await expectBankLinkError(provider.exchangePublicToken({ publicToken, userId: USER }), 'INVALID_PUBLIC_TOKEN');
      await expectBankLinkError(provider.exchangePublicToken({ publicToken: 'public-made-up-0000', userId: USER }), 'INVALID_PUBLIC_TOKEN');
    });

    it('syncs page by page to exactly the item’s transactions, each one as the port describes it, and nothing more from the last cursor', async () => {
      const { provider, expectedTransactions, pageSize } = harness();
      const item = await link();
      const state = new Map<string, ProviderTransaction>();
      const { cursor, pages } = await drain(provider, item.accessToken, pageSize, state);
      expect(pages).toBeGreaterThan(1);
      const expected = await expectedTransactions(item);
      expect(new Map([...state.entries()].sort(([a], [b]) => a.localeCompare(b)))).toEqual(new Map(expected.map((transaction) => [transaction.transactionId, transaction] as const).sort(([a], [b]) => a.localeCompare(b))));
      const accountIds = item.accounts.map((account) => account.linkAccountId);
      for (const transaction of state.values()) expectPortShaped(transaction, accountIds);
      expect(await provider.syncTransactions({ accessToken: item.accessToken, cursor })).toMatchObject({ added: [], modified: [], removed: [], hasMore: false });
    });

    it('answers the item’s accounts', async () => {
      const { provider } = harness();
      const item = await link();
      expect((await provider.getAccounts(item.accessToken)).map((account) => account.linkAccountId)).toEqual(item.accounts.map((account) => account.linkAccountId));
    });

    it('refuses to sync while the user must log in again, and says so in the item’s status; syncs again once repaired', async () => {
      const { provider, requireLogin, repairLogin } = harness();
      const item = await link();
      expect(await provider.getItemStatus(item.accessToken)).toEqual({ status: 'ok' });
      await requireLogin(item);
      await expectBankLinkError(provider.syncTransactions({ accessToken: item.accessToken, count: 5 }), 'ITEM_LOGIN_REQUIRED');
      expect(await provider.getItemStatus(item.accessToken)).toEqual({ status: 'login_required' });
      await repairLogin(item);
      expect(await provider.getItemStatus(item.accessToken)).toEqual({ status: 'ok' });
      await expect(provider.syncTransactions({ accessToken: item.accessToken, count: 5 })).resolves.toHaveProperty('hasMore', true);
    });

    it('reconnects the item through a link token issued for it: the same item and accounts, its login working again', async () => {
      const { provider, requireLogin, reconnectPublicToken } = harness();
      const item = await link();
      await requireLogin(item);
      const { linkToken } = await provider.createLinkToken({ userId: USER, reconnectItemId: item.itemId, reconnectAccessToken: item.accessToken });
      const reconnected = await provider.exchangePublicToken({ publicToken: await reconnectPublicToken(USER, linkToken), userId: USER });
      expect(reconnected.itemId).toBe(item.itemId);
      expect(reconnected.accounts.map((account) => account.linkAccountId)).toEqual(expect.arrayContaining(item.accounts.map((account) => account.linkAccountId)));
      expect(await provider.getItemStatus(reconnected.accessToken)).toEqual({ status: 'ok' });
      await expect(provider.syncTransactions({ accessToken: reconnected.accessToken, count: 5 })).resolves.toHaveProperty('added');
    });

    it('removes an item: its access token is refused from then on', async () => {
      const { provider } = harness();
      const item = await link();
      await provider.removeItem(item.accessToken);
      await expectBankLinkError(provider.getItemStatus(item.accessToken), 'INVALID_ACCESS_TOKEN');
      await expectBankLinkError(provider.syncTransactions({ accessToken: item.accessToken }), 'INVALID_ACCESS_TOKEN');
      await expectBankLinkError(provider.removeItem(item.accessToken), 'INVALID_ACCESS_TOKEN');
    });

    it('verifies a delivery of every code and parses it into its typed form, each delivery with an id of its own', async () => {
      const { provider, now, signedWebhook } = harness();
      const item = await link();
      const ids = new Set<string>();
      for (const code of BANK_LINK_WEBHOOK_CODES) {
        const at = now();
        const delivery = await signedWebhook(item, code, at);
        expect([code, await provider.verifyWebhook(delivery.rawBody, delivery.headers, at)]).toEqual([code, true]);
        const webhook = provider.parseWebhook(delivery.rawBody, delivery.headers);
        expect(webhook).toMatchObject({ code, itemId: item.itemId, webhookId: expect.any(String) });
        ids.add(webhook.webhookId as string);
      }
      expect(ids.size).toBe(BANK_LINK_WEBHOOK_CODES.length);
    });

    it('refuses a tampered body, a missing signature, and a delivery signed more than five minutes before or after its receipt', async () => {
      const { provider, now, signedWebhook } = harness();
      const item = await link();
      const at = now();
      const delivery = await signedWebhook(item, 'LOGIN_REPAIRED', at);
      const seconds = (n: number) => new Date(at.getTime() + n * 1000);
      expect(await provider.verifyWebhook(delivery.rawBody, delivery.headers, seconds(299))).toBe(true);
      expect(await provider.verifyWebhook(delivery.rawBody.replace(item.itemId, `${item.itemId}x`), delivery.headers, at)).toBe(false);
      expect(await provider.verifyWebhook(`${delivery.rawBody} `, delivery.headers, at)).toBe(false);
      expect(await provider.verifyWebhook(delivery.rawBody, { 'content-type': 'application/json' }, at)).toBe(false);
      expect(await provider.verifyWebhook(delivery.rawBody, delivery.headers, seconds(301))).toBe(false);
      expect(await provider.verifyWebhook(delivery.rawBody, delivery.headers, seconds(-301))).toBe(false);
    });

    it('parses a body it cannot act on as UNRECOGNISED', () => {
      const { provider } = harness();
      expect(provider.parseWebhook('not json', {})).toMatchObject({ code: 'UNRECOGNISED', rawCode: null, itemId: null });
      expect(provider.parseWebhook('[1]', {})).toMatchObject({ code: 'UNRECOGNISED', rawCode: null });
    });
  });
}
