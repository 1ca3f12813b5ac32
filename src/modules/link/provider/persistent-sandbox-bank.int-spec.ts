import { createMigratedDatabase } from '../../../../test/support/test-database.js';
import type { DatabaseConnection } from '../../../infrastructure/database/database.js';
import { BankLinkError, type ProviderTransaction, type SyncPage } from '../bank-link.port.js';
import { createPersistentSandboxBank, type PersistentSandboxBank } from './persistent-sandbox-bank.js';

let connection: DatabaseConnection;
let drop: () => Promise<void>;
let at = Date.parse('2026-11-20T10:00:00.000Z');
const clock = { now: () => new Date(at) };
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
  one = createPersistentSandboxBank(connection.db, { clock });
  other = createPersistentSandboxBank(connection.db, { clock });
});
afterAll(() => drop());

describe('the sandbox bank kept in PostgreSQL', () => {
  it('spends a public token once, whichever instance exchanges it, even when two race', async () => {
    const publicToken = await one.createPublicToken({ institutionId: 'ins_100001' });
    const results = await Promise.allSettled([one.exchangePublicToken(publicToken), other.exchangePublicToken(publicToken)]);
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
    const refused = results.find((result) => result.status === 'rejected') as PromiseRejectedResult;
    expect(refused.reason).toBeInstanceOf(BankLinkError);
    expect(refused.reason).toMatchObject({ code: 'INVALID_PUBLIC_TOKEN' });
  });

  it('refuses a public token past its 30 minutes', async () => {
    const publicToken = await one.createPublicToken();
    at += 31 * 60_000;
    await expect(one.exchangePublicToken(publicToken)).rejects.toMatchObject({ code: 'INVALID_PUBLIC_TOKEN' });
  });

  it('serves the same item to every instance: accounts, history, sync pages and status', async () => {
    const item = await one.exchangePublicToken(await one.createPublicToken({ institutionId: 'ins_100003' }));
    expect(item.institution.id).toBe('ins_100003');
    expect(await other.itemHistory(item.itemId)).toEqual(await one.itemHistory(item.itemId));
    expect(await other.syncTransactions({ accessToken: item.accessToken, count: 20 })).toEqual(await one.syncTransactions({ accessToken: item.accessToken, count: 20 }));

    await one.fireWebhook({ itemId: item.itemId, code: 'ITEM_LOGIN_REQUIRED' });
    expect(await other.getItemStatus(item.accessToken)).toEqual({ status: 'login_required' });
    await expect(other.syncTransactions({ accessToken: item.accessToken })).rejects.toMatchObject({ code: 'ITEM_LOGIN_REQUIRED' });
    await other.fireWebhook({ itemId: item.itemId, code: 'LOGIN_REPAIRED' });
    expect(await one.getItemStatus(item.accessToken)).toEqual({ status: 'ok' });
    const fired = await one.fireWebhook({ itemId: item.itemId, code: 'PENDING_EXPIRATION', at: new Date('2026-11-21T00:00:00.000Z') });
    expect(other.verifyWebhook(fired.rawBody, fired.headers, new Date('2026-11-21T00:04:00.000Z'))).toBe(true);
    expect(other.verifyWebhook(fired.rawBody, fired.headers, new Date('2026-11-21T00:05:01.000Z'))).toBe(false);
    expect(other.parseWebhook(fired.rawBody)).toEqual(fired.webhook);
    expect(await other.getItemStatus(item.accessToken)).toEqual({ status: 'pending_disconnect', disconnectAt: '2026-11-28T00:00:00.000Z' });

    await other.removeItem(item.accessToken);
    await expect(one.getItemStatus(item.accessToken)).rejects.toMatchObject({ code: 'INVALID_ACCESS_TOKEN' });
    await expect(one.createLinkToken({ userId: 'u', reconnectItemId: item.itemId })).rejects.toMatchObject({ code: 'ITEM_NOT_FOUND' });
  });

  it('knows the five sandbox institutions and no other', async () => {
    await expect(one.createPublicToken({ institutionId: 'ins_999999' })).rejects.toMatchObject({ code: 'INSTITUTION_NOT_FOUND' });
  });

  it('lets time move on for its items: a later sync from the kept cursor brings the new days, on any instance', async () => {
    at = Date.parse('2026-11-20T10:00:00.000Z');
    const item = await one.exchangePublicToken(await one.createPublicToken({ institutionId: 'ins_100002' }));
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
    const item = await one.exchangePublicToken(await one.createPublicToken({ institutionId: 'ins_100001' }));
    await connection.db.updateTable('sandbox_bank_items').set({ horizon_days: null }).where('item_id', '=', item.itemId).execute();
    const fresh = createPersistentSandboxBank(connection.db, { clock });
    const linkDay = await fresh.itemHistory(item.itemId);
    at = Date.parse('2027-01-20T10:00:00.000Z');
    expect(await fresh.itemHistory(item.itemId)).toEqual(linkDay);
  });

  it('stores the size asked for with the item, and generates a 100,000-transaction item and syncs it page by page (figures printed)', async () => {
    at = Date.parse('2026-11-20T10:00:00.000Z');
    await expect(one.createPublicToken({ transactionCount: -5 })).rejects.toThrow(RangeError);
    const publicToken = await one.createPublicToken({ institutionId: 'ins_100004', transactionCount: 100_000 });
    const heapBefore = process.memoryUsage().heapUsed;
    let started = performance.now();
    const item = await one.exchangePublicToken(publicToken);
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
});
