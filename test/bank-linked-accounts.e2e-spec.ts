import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { nightlyBalanceSnapshotsJob } from '../src/modules/accounts/nightly-balance-snapshots.job.js';
import { transactionStreamId } from '../src/modules/transactions/transaction.js';
import { startTestApp, type TestApp } from './support/test-app.js';

const LINK_TOKEN_KEY = randomBytes(32).toString('base64');
const DAY = 86_400_000;

let t: TestApp;
/** The service's clock (and the sandbox bank's today): moved on by the tests, so a later sync has new days to bring. */
let now = Date.parse('2026-11-20T12:00:00.000Z');

beforeAll(async () => {
  t = await startTestApp({ env: { LINK_TOKEN_KEY, BANK_LINK_SYNC_INTERVAL_MINUTES: '0' }, clock: { now: () => new Date(now) } });
}, 180_000);
afterAll(() => t.close(), 180_000);

interface Listed {
  id: string;
  subtype: string | null;
  logo: string | null;
  url: string | null;
  institutionName: string | null;
}

/** A user with one sandbox item, linked and synced (its year of transactions listed). */
async function userWithSyncedItem(institutionId = 'ins_100003') {
  const user = await t.newUser();
  const { publicToken } = (await t.as(user.key).post('/v1/sandbox/public-token', { institutionId }).expect(200)).body as { publicToken: string };
  const item = (await t.as(user.key).post('/v1/link/items', { publicToken }).expect(201)).body as { id: string; linkItemId: string };
  await t.settle();
  const accounts = (await t.as(user.key).get('/v1/accounts').expect(200)).body.accounts as Listed[];
  return { ...user, item, accounts };
}

describe('bank-linked transactions', () => {
  it("show their account's institution: logo, site and logo domain as /accounts has them; a manual account's show none", async () => {
    const { key, accounts } = await userWithSyncedItem('ins_100003');
    const page = (await t.as(key).get('/v1/transactions?limit=200').expect(200)).body.transactions as Array<Record<string, unknown>>;
    expect(page.length).toBeGreaterThan(20);
    const byId = new Map(accounts.map((account) => [account.id, account]));
    for (const transaction of page) {
      const account = byId.get(transaction.accountId as string) as Listed;
      expect(transaction).toMatchObject({
        source: 'bank_link',
        institutionName: 'Cedar & Main Bank',
        institutionLogo: account.logo,
        institutionUrl: account.url,
        accountLogoDomain: 'cedarandmain.example',
      });
    }
    expect(accounts[0].logo).toMatch(/^https:\/\/logos\./);
    expect(accounts[0].url).toBe('https://www.cedarandmain.example');

    const manual = (await t.as(key).post('/v1/accounts', { name: 'Cash', type: 'bank', subtype: 'checking', currentBalance: 10, institutionName: 'Under the mattress' }).expect(201)).body;
    const typed = (await t.as(key).post('/v1/transactions', { accountId: manual.id, amount: -2, date: '2026-11-20', name: 'Coffee' }).expect(201)).body;
    expect(typed).toMatchObject({ institutionName: 'Under the mattress', institutionLogo: null, institutionUrl: null, accountLogoDomain: null });
  }, 180_000);
});

/** How many transactions the provider's syncs imported into an account, in the event store (what no read model can hide). */
async function importedInto(accountId: string): Promise<number> {
  const { rows } = await sql<{ count: string }>`SELECT count(*) AS count FROM events WHERE type = 'TransactionImported' AND data->>'accountId' = ${accountId}`.execute(t.runtime.database.db);
  return Number(rows[0]!.count);
}

describe('disconnecting one bank-linked account (DELETE /accounts/{id})', () => {
  it('hides the account and its transactions everywhere at once, keeps their history, and neither a later sync nor a reconnect brings it back; the last account takes the item with it', async () => {
    const { key, userId, item, accounts } = await userWithSyncedItem('ins_100001');
    const card = accounts.find((account) => account.subtype === 'credit card') as Listed;
    const others = accounts.filter((account) => account.id !== card.id);
    const page = (await t.as(key).get(`/v1/transactions?accountId=${card.id}&limit=500`).expect(200)).body.transactions as Array<{ id: string }>;
    expect(page.length).toBeGreaterThan(10);
    expect((await t.as(key).get(`/v1/balances/snapshots?accountId=${card.id}`).expect(200)).body.snapshots).toHaveLength(1);
    const spendingBefore = (await t.as(key).get('/v1/spending?period=1y').expect(200)).body.totalSpending as number;
    const cardSpending = (await t.as(key).get(`/v1/spending?period=1y&accountId=${card.id}`).expect(200)).body.totalSpending as number;
    expect(cardSpending).toBeGreaterThan(0);

    const removed = await t.as(key).delete(`/v1/accounts/${card.id}`).expect(200);
    expect(removed.body).toEqual({ success: true, message: 'Account removed' });
    // Read-your-writes: no settling before these reads.
    const listed = (await t.as(key).get('/v1/accounts').expect(200)).body.accounts as Listed[];
    expect(listed.map((account) => account.id).sort()).toEqual(others.map((account) => account.id).sort());
    await t.as(key).get(`/v1/accounts/${card.id}`).expect(404);
    const linkAccounts = (await t.as(key).get(`/v1/link/items/${encodeURIComponent(item.linkItemId)}/accounts`).expect(200)).body.accounts as Array<{ id: string }>;
    expect(linkAccounts.map((account) => account.id)).not.toContain(card.id);
    expect((await t.as(key).get('/v1/link/items').expect(200)).body.items).toHaveLength(1);
    const remaining = (await t.as(key).get('/v1/transactions?limit=500').expect(200)).body.transactions as Array<{ accountId: string }>;
    expect(remaining.length).toBeGreaterThan(0);
    expect(remaining.filter((transaction) => transaction.accountId === card.id)).toEqual([]);
    await t.as(key).get(`/v1/transactions/${page[0]!.id}`).expect(404);
    for (const path of ['/v1/transactions', '/v1/balances/snapshots', '/v1/spending']) await t.as(key).get(`${path}?accountId=${card.id}`).expect(404);
    expect(((await t.as(key).get('/v1/balances/snapshots').expect(200)).body.snapshots as Array<{ accountId: string }>).map((snapshot) => snapshot.accountId)).not.toContain(card.id);
    expect((await t.as(key).get('/v1/spending?period=1y').expect(200)).body.totalSpending).toBeCloseTo(spendingBefore - cardSpending, 2);
    await t.settle();
    expect(((await t.as(key).get('/v1/recurring').expect(200)).body.streams as Array<{ accountId: string }>).filter((stream) => stream.accountId === card.id)).toEqual([]);
    // The read models forgot its rows; its history stays in the streams, and its transactions' activity stays readable.
    for (const table of ['transactions', 'balance_snapshots', 'spending_transactions'] as const) {
      const { rows } = await sql<{ count: string }>`SELECT count(*) AS count FROM ${sql.table(table)} WHERE account_id = ${card.id}`.execute(t.runtime.database.db);
      expect([table, Number(rows[0]!.count)]).toEqual([table, 0]);
    }
    expect((await t.runtime.eventStore.readStream(transactionStreamId(page[0]!.id))).length).toBeGreaterThan(0);
    expect((await t.as(key).get(`/v1/transactions/${page[0]!.id}/activity`).expect(200)).body.events.length).toBeGreaterThan(0);
    expect((await t.as(key).delete(`/v1/accounts/${card.id}`).expect(200)).body).toEqual({ success: true, message: 'Nothing to delete: the account is already gone' });

    // Two weeks on, a sync brings the other accounts' new days and nothing of the card's.
    const importedBefore = await importedInto(card.id);
    const othersBefore = await Promise.all(others.map((account) => importedInto(account.id)));
    now += 14 * DAY;
    await t.as(key).post(`/v1/link/items/${encodeURIComponent(item.linkItemId)}/sync`).expect(200);
    await t.settle();
    await nightlyBalanceSnapshotsJob(t.runtime).handle({});
    await t.settle();
    expect(await importedInto(card.id)).toBe(importedBefore);
    const othersAfter = await Promise.all(others.map((account) => importedInto(account.id)));
    expect(othersAfter.reduce((a, b) => a + b, 0)).toBeGreaterThan(othersBefore.reduce((a, b) => a + b, 0));
    expect(((await t.as(key).get('/v1/accounts').expect(200)).body.accounts as Listed[]).map((account) => account.id)).not.toContain(card.id);
    expect(((await t.as(key).get('/v1/balances/snapshots').expect(200)).body.snapshots as Array<{ accountId: string }>).map((snapshot) => snapshot.accountId)).not.toContain(card.id);

    // Reconnecting the item (the provider's update mode) does not add it back either.
    const { linkToken } = (await t.as(key).post('/v1/link/token', { reconnectLinkItemId: item.linkItemId }).expect(200)).body;
    const { publicToken } = (await t.as(key).post('/v1/sandbox/public-token', { linkToken }).expect(200)).body;
    await t.as(key).post('/v1/link/items', { publicToken }).expect(201);
    expect(((await t.as(key).get('/v1/accounts').expect(200)).body.accounts as Listed[]).map((account) => account.id).sort()).toEqual(others.map((account) => account.id).sort());

    // The item's last account takes the item with it, and the provider forgets it.
    for (const [index, account] of others.entries()) {
      const answer = (await t.as(key).delete(`/v1/accounts/${account.id}`).expect(200)).body;
      expect(answer.message).toBe(index === others.length - 1 ? 'Account removed, and its connection with it (it was the last account)' : 'Account removed');
    }
    expect((await t.as(key).get('/v1/link/items').expect(200)).body.items).toEqual([]);
    await t.as(key).get(`/v1/link/items/${encodeURIComponent(item.linkItemId)}/accounts`).expect(404);
    expect((await t.as(key).get('/v1/accounts').expect(200)).body.accounts).toEqual([]);
    expect((await t.as(key).get('/v1/transactions').expect(200)).body.transactions).toEqual([]);
    const credentials = await t.runtime.database.db.selectFrom('link_item_credentials').select('link_item_uuid').where('user_id', '=', userId).execute();
    expect(credentials).toEqual([]);
  }, 300_000);
});
