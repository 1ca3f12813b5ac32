import { randomBytes } from 'node:crypto';
import { nightlyBalanceSnapshotsJob } from '../src/modules/accounts/nightly-balance-snapshots.job.js';
import { createBankLink } from '../src/modules/link/bank-link.wiring.js';
import { linkItemUuidOf } from '../src/modules/link/link-items/link-item.js';
import { refreshLinkedBalances } from '../src/modules/link/sync/linked-balances.js';
import { scheduledBankLinkSyncJob } from '../src/modules/link/sync/scheduled-bank-link-sync.job.js';
import { startTestApp, type TestApp } from './support/test-app.js';

let t: TestApp;

beforeAll(async () => {
  // The schedule is off: this spec runs the scheduled job itself.
  t = await startTestApp({ env: { LINK_TOKEN_KEY: randomBytes(32).toString('base64'), BANK_LINK_SYNC_INTERVAL_MINUTES: '0' } });
});
afterAll(async () => {
  await t.close();
});

const today = () => new Date().toISOString().slice(0, 10);

interface Account {
  id: string;
  type: string;
  current: number | null;
  available?: number | null;
  creditLimit: number | null;
  userOverrideCreditLimit: number | null;
  updatedAt: string;
}

async function linkAnItem(key: string, institutionId = 'ins_100002'): Promise<string> {
  const { publicToken } = (await t.as(key).post('/v1/sandbox/public-token', { institutionId }).expect(200)).body as { publicToken: string };
  return ((await t.as(key).post('/v1/link/items', { publicToken }).expect(201)).body as { linkItemId: string }).linkItemId;
}

/** What the sync job asks the provider at the end of a sync. */
async function providerAccounts(userId: string, linkItemId: string) {
  const bankLink = await createBankLink(t.runtime.config, t.runtime.database.db, t.runtime.clock);
  const row = await t.runtime.database.db.selectFrom('link_item_credentials').selectAll().where('link_item_uuid', '=', linkItemUuidOf(userId, linkItemId)).executeTakeFirstOrThrow();
  return bankLink.provider!.getAccounts(bankLink.sealer.open(row.sealed_access_token, row.provider, row.link_item_id));
}

describe('linked balances, their nightly snapshots and the scheduled sync', () => {
  it("shows the provider's new balances on the linked accounts, keeps the user's own limit, and snapshots them nightly into GET /balances/snapshots", async () => {
    const { key, userId } = await t.newUser();
    const linkItemId = await linkAnItem(key);
    await t.settle();
    const accounts = (await t.as(key).get('/v1/accounts').expect(200)).body.accounts as Account[];
    const card = accounts.find((account) => account.type === 'credit_card')!;
    await t.as(key).patch(`/v1/accounts/${card.id}`, { creditLimit: 12000 }).expect(200);

    // The provider reports the card moved by 42.5 since: only the card's balances are recorded.
    const now = await providerAccounts(userId, linkItemId);
    const moved = now.map((account) =>
      account.type === 'credit' ? { ...account, balances: { ...account.balances, current: (Number(account.balances.current) - 42.5).toFixed(2), available: (Number(account.balances.available) - 42.5).toFixed(2) } } : account,
    );
    const context = { userId, actor: 'system' as const, requestId: `bank-link-sync-e2e`, now: new Date() };
    const first = await refreshLinkedBalances(t.runtime, { userId, linkItemId, accounts: moved }, context);
    const again = await refreshLinkedBalances(t.runtime, { userId, linkItemId, accounts: moved }, context);
    expect({ first: first.refreshed, again: again.refreshed }).toEqual({ first: [card.id], again: [] });
    await t.settle();

    const shown = (await t.as(key).get(`/v1/accounts/${card.id}`).expect(200)).body as Account;
    const reported = moved.find((account) => account.type === 'credit')!.balances;
    expect(shown).toMatchObject({ current: Number(reported.current), available: Number(reported.available), userOverrideCreditLimit: 12000 });
    expect(Date.parse(shown.updatedAt)).toBeGreaterThan(Date.parse(card.updatedAt));

    const job = nightlyBalanceSnapshotsJob(t.runtime);
    await job.handle({});
    await job.handle({});
    await t.settle();
    const snapshots = (await t.as(key).get('/v1/balances/snapshots').expect(200)).body.snapshots as Array<{ accountId: string; date: string; currentBalance: number; availableBalance: number; creditLimit: number }>;
    const linkedToday = snapshots.filter((snapshot) => snapshot.date === today());
    expect(linkedToday.map((snapshot) => snapshot.accountId).sort()).toEqual(accounts.filter((account) => account.type !== 'investment').map((account) => account.id).sort());
    expect(linkedToday.find((snapshot) => snapshot.accountId === card.id)).toMatchObject({ currentBalance: Number(reported.current), availableBalance: Number(reported.available), creditLimit: 12000 });
    const byAccount = await t.as(key).get(`/v1/balances/snapshots?accountId=${card.id}`).expect(200);
    expect(byAccount.body.snapshots).toHaveLength(1);
  });

  it('queues one sync per linked item on schedule, and none for a disconnected one', async () => {
    const { key, userId } = await t.newUser();
    await linkAnItem(key, 'ins_100003');
    const gone = await linkAnItem(key, 'ins_100004');
    // The two first syncs import a few thousand transactions; a disconnect answered before they are
    // projected waits behind them, past the read-your-writes timeout on a loaded machine (a 503 here once).
    await t.settle();
    await t.as(key).delete(`/v1/link/items/${encodeURIComponent(gone)}`).expect(200);
    await t.settle();
    const jobs = t.runtime.jobs;
    const items = await t.runtime.database.db.selectFrom('link_item_credentials').select('link_item_uuid').execute();
    const before = (await jobs.counts()).completed;

    const scheduled = scheduledBankLinkSyncJob({ ...t.runtime, bankLink: () => createBankLink(t.runtime.config, t.runtime.database.db, t.runtime.clock), everyMinutes: 60 });
    await scheduled.handle({}, jobs);
    await t.settle();
    // Every item still linked (this user's and the earlier test's) got one sync, and it ran.
    expect((await jobs.counts()).completed - before).toBe(items.length);
    expect(items.map((item) => item.link_item_uuid)).not.toContain(linkItemUuidOf(userId, gone));
  });
});
