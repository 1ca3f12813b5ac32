import { createHash, randomBytes } from 'node:crypto';
import { createMigratedDatabase } from '../../../../test/support/test-database.js';
import type { DatabaseConnection } from '../../../infrastructure/database/database.js';
import { bankLinkContract } from '../bank-link-contract.test-support.js';
import { BankLinkError, type ExchangedItem, type ProviderTransaction, type SyncPage } from '../bank-link.port.js';
import { createPersistentSandboxBank, type PersistentSandboxBank } from './persistent-sandbox-bank.js';

let connection: DatabaseConnection;
let drop: () => Promise<void>;
let at = Date.parse('2026-11-20T10:00:00.000Z');
const clock = { now: () => new Date(at) };
const webhookSecret = randomBytes(32);
/** The user the link flows here run for: tokens are exchanged by the user they were issued to. */
const USER = 'user-1';
/** Two adapters on one database: two instances (or an instance and a worker) of the service. */
let one: PersistentSandboxBank;
let other: PersistentSandboxBank;

beforeAll(async () => {
  const migrated = await createMigratedDatabase();
  connection = migrated.connection;
  drop = async () => {
    await connection.close();
    await migrated.database.drop();
  };
  one = createPersistentSandboxBank(connection.db, { clock, webhookSecret });
  other = createPersistentSandboxBank(connection.db, { clock, webhookSecret });
});
afterAll(() => drop());

describe('the sandbox bank kept in PostgreSQL', () => {
  it('spends a public token once, whichever instance exchanges it, even when two race', async () => {
    const publicToken = await one.createPublicToken({ userId: USER, institutionId: 'ins_100001' });
    const results = await Promise.allSettled([one.exchangePublicToken({ publicToken, userId: USER }), other.exchangePublicToken({ publicToken, userId: USER })]);
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
    const refused = results.find((result) => result.status === 'rejected') as PromiseRejectedResult;
    expect(refused.reason).toBeInstanceOf(BankLinkError);
    expect(refused.reason).toMatchObject({ code: 'INVALID_PUBLIC_TOKEN' });
  });

  it('refuses a public token past its 30 minutes', async () => {
    const publicToken = await one.createPublicToken({ userId: USER });
    at += 31 * 60_000;
    await expect(one.exchangePublicToken({ publicToken, userId: USER })).rejects.toMatchObject({ code: 'INVALID_PUBLIC_TOKEN' });
  });

  it('serves the same item to every instance: accounts, history, sync pages and status', async () => {
    const item = await one.exchangePublicToken({ publicToken: await one.createPublicToken({ userId: USER, institutionId: 'ins_100003' }), userId: USER });
    expect(item.institution.id).toBe('ins_100003');
    expect(await other.itemHistory(item.itemId)).toEqual(await one.itemHistory(item.itemId));
    expect(await other.syncTransactions({ accessToken: item.accessToken, count: 20 })).toEqual(await one.syncTransactions({ accessToken: item.accessToken, count: 20 }));

    await one.fireWebhook({ itemId: item.itemId, code: 'ITEM_LOGIN_REQUIRED' });
    expect(await other.getItemStatus(item.accessToken)).toEqual({ status: 'login_required' });
    await expect(other.syncTransactions({ accessToken: item.accessToken })).rejects.toMatchObject({ code: 'ITEM_LOGIN_REQUIRED' });
    await other.fireWebhook({ itemId: item.itemId, code: 'LOGIN_REPAIRED' });
    expect(await one.getItemStatus(item.accessToken)).toEqual({ status: 'ok' });
    const fired = await one.fireWebhook({ itemId: item.itemId, code: 'PENDING_EXPIRATION', at: new Date('2026-11-21T00:00:00.000Z') });
    expect(await other.verifyWebhook(fired.rawBody, fired.headers, new Date('2026-11-21T00:04:00.000Z'))).toBe(true);
    expect(await other.verifyWebhook(fired.rawBody, fired.headers, new Date('2026-11-21T00:05:01.000Z'))).toBe(false);
    expect(other.parseWebhook(fired.rawBody, fired.headers)).toEqual(fired.webhook);
    expect(await other.getItemStatus(item.accessToken)).toEqual({ status: 'pending_disconnect', disconnectAt: '2026-11-28T00:00:00.000Z' });

    await other.removeItem(item.accessToken);
    await expect(one.getItemStatus(item.accessToken)).rejects.toMatchObject({ code: 'INVALID_ACCESS_TOKEN' });
    await expect(one.createLinkToken({ userId: USER, reconnectItemId: item.itemId })).rejects.toMatchObject({ code: 'ITEM_NOT_FOUND' });
  });

  it('knows the five sandbox institutions and no other', async () => {
    await expect(one.createPublicToken({ userId: USER, institutionId: 'ins_999999' })).rejects.toMatchObject({ code: 'INSTITUTION_NOT_FOUND' });
  });

  it('lets time move on for its items: a later sync from the kept cursor brings the new days, on any instance', async () => {
    at = Date.parse('2026-11-20T10:00:00.000Z');
    const item = await one.exchangePublicToken({ publicToken: await one.createPublicToken({ userId: USER, institutionId: 'ins_100002' }), userId: USER });
    const state = new Map<string, ProviderTransaction>();
    const apply = (page: SyncPage): void => {
      for (const transaction of [...page.added, ...page.modified]) state.set(transaction.transactionId, transaction);
      for (const { transactionId } of page.removed) state.delete(transactionId);
    };
    const drain = async (bank: PersistentSandboxBank, cursor?: string): Promise<string> => {
      for (;;) {
        const page = await bank.syncTransactions({ accessToken: item.accessToken, cursor, count: 500 });
        apply(page);
        cursor = page.nextCursor;
        if (!page.hasMore) return cursor;
      }
    };
    const expected = async (bank: PersistentSandboxBank) => new Map((await bank.itemHistory(item.itemId)).transactions.map((t) => [t.transactionId, t]));

    let cursor = await drain(one);
    expect(state).toEqual(await expected(other));
    const linkDayAccounts = await other.getAccounts(item.accessToken);
    expect(linkDayAccounts).toEqual(item.accounts);

    at = Date.parse('2026-12-04T08:00:00.000Z');
    const next = await other.syncTransactions({ accessToken: item.accessToken, cursor, count: 500 });
    expect(next.added.length).toBeGreaterThan(0);
    expect(next.added.every((transaction) => transaction.date > '2026-11-20' && transaction.date <= '2026-12-04')).toBe(true);
    apply(next);
    const before = state.size;
    cursor = await drain(other, next.nextCursor);
    expect(state.size).toBeGreaterThan(before);
    expect(state).toEqual(await expected(one));
    expect(await one.getAccounts(item.accessToken)).toEqual(await other.getAccounts(item.accessToken));
    expect(await one.getAccounts(item.accessToken)).not.toEqual(linkDayAccounts);
    expect(await one.syncTransactions({ accessToken: item.accessToken, cursor })).toMatchObject({ added: [], modified: [], removed: [], hasMore: false, nextCursor: cursor });
  });

  it('keeps an item linked before items lived on (no horizon stored) as it was on its day', async () => {
    at = Date.parse('2026-11-20T10:00:00.000Z');
    const item = await one.exchangePublicToken({ publicToken: await one.createPublicToken({ userId: USER, institutionId: 'ins_100001' }), userId: USER });
    await connection.db.updateTable('sandbox_bank_items').set({ horizon_days: null }).where('item_id', '=', item.itemId).execute();
    const fresh = createPersistentSandboxBank(connection.db, { clock, webhookSecret });
    const linkDay = await fresh.itemHistory(item.itemId);
    at = Date.parse('2027-01-20T10:00:00.000Z');
    expect(await fresh.itemHistory(item.itemId)).toEqual(linkDay);
  });

  it('stores the size asked for with the item, and generates a 100,000-transaction item and syncs it page by page (figures printed)', async () => {
    at = Date.parse('2026-11-20T10:00:00.000Z');
    await expect(one.createPublicToken({ userId: USER, transactionCount: -5 })).rejects.toThrow(RangeError);
    const publicToken = await one.createPublicToken({ userId: USER, institutionId: 'ins_100004', transactionCount: 100_000 });
    const heapBefore = process.memoryUsage().heapUsed;
    let started = performance.now();
    const item = await one.exchangePublicToken({ publicToken, userId: USER });
    const exchangeMs = performance.now() - started;
    const row = await connection.db.selectFrom('sandbox_bank_items').select(['transaction_count', 'horizon_days']).where('item_id', '=', item.itemId).executeTakeFirstOrThrow();
    expect(row).toEqual({ transaction_count: 100_000, horizon_days: 400 });

    // The other instance has not generated it yet: its first page does, the rest read the cached log.
    const pageMs: number[] = [];
    let cursor: string | undefined;
    let changes = 0;
    for (;;) {
      started = performance.now();
      const page = await other.syncTransactions({ accessToken: item.accessToken, cursor, count: 500 });
      pageMs.push(performance.now() - started);
      changes += page.added.length + page.modified.length + page.removed.length;
      cursor = page.nextCursor;
      if (!page.hasMore) break;
    }
    expect((await other.itemHistory(item.itemId)).transactions).toHaveLength(100_000);
    const rest = pageMs.slice(1).sort((a, b) => a - b);
    process.stdout.write(
      `100,000-transaction item: exchange (generation) ${exchangeMs.toFixed(0)} ms, heap +${((process.memoryUsage().heapUsed - heapBefore) / 1048576).toFixed(0)} MB; ` +
        `first sync ${changes} changes in ${pageMs.length} pages: first page (generation on the other instance) ${pageMs[0]!.toFixed(0)} ms, ` +
        `then median ${rest[rest.length >> 1]!.toFixed(2)} ms, p95 ${rest[Math.floor(rest.length * 0.95)]!.toFixed(2)} ms per page\n`,
    );
  }, 60_000);

  describe('reconnecting an item (the link flow in update mode)', () => {
    const reconnectToken = async (bank: PersistentSandboxBank, itemId: string): Promise<string> =>
      bank.createPublicToken({ userId: USER, linkToken: (await bank.createLinkToken({ userId: USER, reconnectItemId: itemId })).linkToken, institutionId: 'ins_100005' });

    it('gives the same item a fresh access token, the old one refused, its status ok again, on every instance', async () => {
      at = Date.parse('2026-11-20T10:00:00.000Z');
      const item = await one.exchangePublicToken({ publicToken: await one.createPublicToken({ userId: USER, institutionId: 'ins_100002' }), userId: USER });
      await one.fireWebhook({ itemId: item.itemId, code: 'ITEM_LOGIN_REQUIRED' });
      const firstPage = await one.syncTransactions({ accessToken: item.accessToken, count: 50 }).catch((error: unknown) => error);
      expect(firstPage).toMatchObject({ code: 'ITEM_LOGIN_REQUIRED' });

      const publicToken = await reconnectToken(one, item.itemId);
      const results = await Promise.allSettled([other.exchangePublicToken({ publicToken, userId: USER }), one.exchangePublicToken({ publicToken, userId: USER })]);
      const won = results.filter((result): result is PromiseFulfilledResult<ExchangedItem> => result.status === 'fulfilled');
      expect(won).toHaveLength(1);
      expect(results.find((result) => result.status === 'rejected')).toMatchObject({ reason: { code: 'INVALID_PUBLIC_TOKEN' } });
      const reconnected = won[0]!.value;
      // The institution is the item's, whatever the request named.
      expect(reconnected).toEqual({ itemId: item.itemId, accessToken: expect.stringMatching(/^access-sandbox-/), institution: item.institution, accounts: item.accounts });
      expect(reconnected.accessToken).not.toBe(item.accessToken);

      await expect(one.getItemStatus(item.accessToken)).rejects.toMatchObject({ code: 'INVALID_ACCESS_TOKEN' });
      await expect(other.syncTransactions({ accessToken: item.accessToken })).rejects.toMatchObject({ code: 'INVALID_ACCESS_TOKEN' });
      expect(await one.getItemStatus(reconnected.accessToken)).toEqual({ status: 'ok' });
      expect(await other.getItemStatus(reconnected.accessToken)).toEqual({ status: 'ok' });
      await expect(other.syncTransactions({ accessToken: reconnected.accessToken, count: 50 })).resolves.toHaveProperty('added');

      // A pending disconnect (or expiration) is over once the user has logged in again.
      await other.fireWebhook({ itemId: item.itemId, code: 'PENDING_EXPIRATION' });
      const again = await other.exchangePublicToken({ publicToken: await reconnectToken(other, item.itemId), userId: USER });
      expect(again.itemId).toBe(item.itemId);
      expect(await one.getItemStatus(again.accessToken)).toEqual({ status: 'ok' });
      await expect(one.getItemStatus(reconnected.accessToken)).rejects.toMatchObject({ code: 'INVALID_ACCESS_TOKEN' });
      const rows = await connection.db.selectFrom('sandbox_bank_items').select('item_id').where('item_id', '=', item.itemId).execute();
      expect(rows).toHaveLength(1);
    });

    it('refuses a link token it did not issue, one past its four hours, or one whose item was removed; one issued for a new link links a new item', async () => {
      at = Date.parse('2026-11-20T10:00:00.000Z');
      await expect(one.createPublicToken({ userId: USER, linkToken: 'link-sandbox-not-issued' })).rejects.toMatchObject({ code: 'INVALID_LINK_TOKEN' });
      await expect(one.createPublicToken({ userId: USER, linkToken: 'link-sandbox-not-issued' })).rejects.toBeInstanceOf(BankLinkError);

      const forNewLink = await one.createLinkToken({ userId: USER });
      const item = await other.exchangePublicToken({ publicToken: await other.createPublicToken({ userId: USER, linkToken: forNewLink.linkToken, institutionId: 'ins_100004' }), userId: USER });
      expect(item.institution.id).toBe('ins_100004');
      const { linkToken } = await one.createLinkToken({ userId: USER, reconnectItemId: item.itemId });
      const row = await connection.db.selectFrom('sandbox_bank_link_tokens').selectAll().where('reconnect_item_id', '=', item.itemId).executeTakeFirstOrThrow();
      expect(row.token_hash).toEqual(createHash('sha256').update(linkToken).digest());

      at += 4 * 3_600_000 + 1;
      await expect(other.createPublicToken({ userId: USER, linkToken })).rejects.toMatchObject({ code: 'INVALID_LINK_TOKEN' });
      await expect(other.createPublicToken({ userId: USER, linkToken: forNewLink.linkToken })).rejects.toMatchObject({ code: 'INVALID_LINK_TOKEN' });

      const { linkToken: fresh } = await one.createLinkToken({ userId: USER, reconnectItemId: item.itemId });
      const publicToken = await one.createPublicToken({ userId: USER, linkToken: fresh });
      await one.removeItem(item.accessToken);
      await expect(other.createPublicToken({ userId: USER, linkToken: fresh })).rejects.toMatchObject({ code: 'INVALID_LINK_TOKEN' });
      await expect(other.exchangePublicToken({ publicToken, userId: USER })).rejects.toMatchObject({ code: 'INVALID_PUBLIC_TOKEN' });
    });

    it("refuses another user's link token or public token before changing anything, and spends neither", async () => {
      at = Date.parse('2026-11-20T10:00:00.000Z');
      const item = await one.exchangePublicToken({ publicToken: await one.createPublicToken({ userId: USER, institutionId: 'ins_100003' }), userId: USER });
      const itemRow = () => connection.db.selectFrom('sandbox_bank_items').selectAll().where('item_id', '=', item.itemId).executeTakeFirstOrThrow();
      const before = await itemRow();

      const { linkToken } = await one.createLinkToken({ userId: USER, reconnectItemId: item.itemId });
      await expect(other.createPublicToken({ userId: 'user-2', linkToken })).rejects.toMatchObject({ code: 'INVALID_LINK_TOKEN' });
      const reconnectToken = await one.createPublicToken({ userId: USER, linkToken });
      const newItemToken = await one.createPublicToken({ userId: USER, institutionId: 'ins_100001' });
      await expect(other.exchangePublicToken({ publicToken: reconnectToken, userId: 'user-2' })).rejects.toMatchObject({ code: 'INVALID_PUBLIC_TOKEN' });
      await expect(other.exchangePublicToken({ publicToken: newItemToken, userId: 'user-2' })).rejects.toMatchObject({ code: 'INVALID_PUBLIC_TOKEN' });
      expect(await itemRow()).toEqual(before);
      expect(await one.getItemStatus(item.accessToken)).toEqual({ status: 'ok' });

      // Tokens issued before they had an owner (migration 0020) are nobody's.
      const orphan = await one.createPublicToken({ userId: USER, institutionId: 'ins_100002' });
      await connection.db.updateTable('sandbox_bank_public_tokens').set({ user_id: null }).where('token_hash', '=', createHash('sha256').update(orphan).digest()).execute();
      await expect(one.exchangePublicToken({ publicToken: orphan, userId: USER })).rejects.toMatchObject({ code: 'INVALID_PUBLIC_TOKEN' });

      expect((await other.exchangePublicToken({ publicToken: reconnectToken, userId: USER })).itemId).toBe(item.itemId);
      expect((await other.exchangePublicToken({ publicToken: newItemToken, userId: USER })).institution.id).toBe('ins_100001');
    });

    it('shares the account NEW_ACCOUNTS_AVAILABLE announced once a reconnect adds it, and another after the next one', async () => {
      at = Date.parse('2026-11-20T10:00:00.000Z');
      const item = await one.exchangePublicToken({ publicToken: await one.createPublicToken({ userId: USER, institutionId: 'ins_100001' }), userId: USER });
      const syncedBefore = await one.syncTransactions({ accessToken: item.accessToken, count: 200 });
      const historyBefore = await one.itemHistory(item.itemId);

      await other.fireWebhook({ itemId: item.itemId, code: 'NEW_ACCOUNTS_AVAILABLE' });
      await other.fireWebhook({ itemId: item.itemId, code: 'NEW_ACCOUNTS_AVAILABLE' });
      // Until a reconnect, the item shares only the accounts the user selected.
      expect(await one.getAccounts(item.accessToken)).toEqual(item.accounts);
      expect(await other.itemHistory(item.itemId)).toEqual(historyBefore);

      const reconnected = await other.exchangePublicToken({ publicToken: await reconnectToken(one, item.itemId), userId: USER });
      expect(reconnected.accounts).toHaveLength(item.accounts.length + 1);
      expect(reconnected.accounts.slice(0, item.accounts.length)).toEqual(item.accounts);
      const added = reconnected.accounts[item.accounts.length]!;
      expect(added).toEqual({
        linkAccountId: expect.any(String),
        name: 'New Savings',
        officialName: expect.stringContaining('New Savings'),
        mask: expect.stringMatching(/^\d{4}$/),
        type: 'depository',
        subtype: 'savings',
        currency: 'USD',
        balances: { current: '1000.00', available: '1000.00', limit: null },
      });
      expect(item.accounts.map((account) => account.linkAccountId)).not.toContain(added.linkAccountId);
      expect(await one.getAccounts(reconnected.accessToken)).toEqual(reconnected.accounts);
      expect(await other.getAccounts(reconnected.accessToken)).toEqual(reconnected.accounts);
      const fresh = createPersistentSandboxBank(connection.db, { clock, webhookSecret });
      expect(await fresh.getAccounts(reconnected.accessToken)).toEqual(reconnected.accounts);
      expect((await fresh.itemHistory(item.itemId)).accounts).toEqual([...historyBefore.accounts, { ...added, openingBalance: '1000.00' }]);
      // The new account has no transactions: the sync log is the same.
      expect(await fresh.syncTransactions({ accessToken: reconnected.accessToken, count: 200 })).toEqual(syncedBefore);
      expect((await fresh.itemHistory(item.itemId)).transactions).toEqual(historyBefore.transactions);

      // A reconnect with no new account adds none; another NEW_ACCOUNTS_AVAILABLE offers another.
      const plain = await one.exchangePublicToken({ publicToken: await reconnectToken(other, item.itemId), userId: USER });
      expect(plain.accounts).toEqual(reconnected.accounts);
      await one.fireWebhook({ itemId: item.itemId, code: 'NEW_ACCOUNTS_AVAILABLE' });
      expect(await other.getAccounts(plain.accessToken)).toEqual(reconnected.accounts);
      const second = await other.exchangePublicToken({ publicToken: await reconnectToken(one, item.itemId), userId: USER });
      expect(second.accounts).toHaveLength(item.accounts.length + 2);
      expect(second.accounts.slice(0, -1)).toEqual(reconnected.accounts);
      const secondAdded = second.accounts.at(-1)!;
      expect(secondAdded).toMatchObject({ name: 'New Savings 2', subtype: 'savings', balances: { current: '1000.00', available: '1000.00', limit: null } });
      expect(new Set(second.accounts.map((account) => account.linkAccountId)).size).toBe(second.accounts.length);
      expect(await one.getAccounts(second.accessToken)).toEqual(second.accounts);
      expect((await other.itemHistory(item.itemId)).accounts).toHaveLength(item.accounts.length + 2);
    });
  });
});

bankLinkContract('the sandbox bank kept in PostgreSQL', () => ({
  provider: one,
  pageSize: 250,
  now: () => clock.now(),
  newItemPublicToken: (userId) => one.createPublicToken({ userId }),
  reconnectPublicToken: (userId, linkToken) => one.createPublicToken({ userId, linkToken }),
  expectedTransactions: async (item) => (await one.itemHistory(item.itemId)).transactions,
  requireLogin: async (item) => void (await one.fireWebhook({ itemId: item.itemId, code: 'ITEM_LOGIN_REQUIRED' })),
  repairLogin: async (item) => void (await one.fireWebhook({ itemId: item.itemId, code: 'LOGIN_REPAIRED' })),
  signedWebhook: async (item, code, at) => {
    const { rawBody, headers } = await one.fireWebhook({ itemId: item.itemId, code, at });
    return { rawBody, headers: { ...headers } };
  },
}));
