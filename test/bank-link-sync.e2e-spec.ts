import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import type { JobDefinition } from '../src/infrastructure/jobs/job.js';
import type { SyncPage } from '../src/modules/link/bank-link.port.js';
import { createBankLink, type BankLink } from '../src/modules/link/bank-link.wiring.js';
import { linkedAccountIdOf } from '../src/modules/link/link-items/link-item.js';
import type { PersistentSandboxBank } from '../src/modules/link/provider/persistent-sandbox-bank.js';
import { BANK_LINK_SYNC_JOB, bankLinkSyncJob, type BankLinkSyncHooks } from '../src/modules/link/sync/bank-link-sync.job.js';
import { BANK_LINK_SCHEDULED_SYNC_JOB } from '../src/modules/link/sync/scheduled-bank-link-sync.job.js';
import { importedTransactionIdOf } from '../src/modules/link/sync/provider-transaction.mapping.js';
import { serviceJobs } from '../src/service-jobs.js';
import { startTestApp, type TestApp } from './support/test-app.js';

const LINK_TOKEN_KEY = randomBytes(32).toString('base64');

/** The service's jobs, with the bank-link sync stoppable part-way through `hooks`. */
function jobsWith(hooks: BankLinkSyncHooks): typeof serviceJobs {
  return (runtime) => {
    let bankLink: Promise<BankLink> | undefined;
    const hooked = bankLinkSyncJob({ ...runtime, bankLink: () => (bankLink ??= createBankLink(runtime.config, runtime.database.db, runtime.clock)) }, hooks) as JobDefinition<never>;
    return serviceJobs(runtime).map((job) => (job.name === BANK_LINK_SYNC_JOB ? hooked : job));
  };
}


async function linkAnItem(t: TestApp, key: string, institutionId = 'ins_100003') {
  const { publicToken } = (await t.as(key).post('/v1/sandbox/public-token', { institutionId }).expect(200)).body as { publicToken: string };
  return (await t.as(key).post('/v1/link/items', { publicToken }).expect(201)).body as { id: string; linkItemId: string };
}

async function sandboxOf(t: TestApp): Promise<PersistentSandboxBank> {
  const bankLink = await createBankLink(t.runtime.config, t.runtime.database.db, t.runtime.clock);
  return bankLink.sandbox as PersistentSandboxBank;
}

async function listedIds(t: TestApp, userId: string): Promise<string[]> {
  const rows = await t.runtime.database.db.selectFrom('transactions').select('id').where('user_id', '=', userId).orderBy('id').execute();
  return rows.map((row) => row.id);
}

/** How many times each of the user's transaction streams was imported (1 each, or something was duplicated). */
async function importsPerStream(t: TestApp, userId: string): Promise<number[]> {
  const { rows } = await sql<{ imports: string }>`
    SELECT count(*) AS imports FROM events
    WHERE type = 'TransactionImported' AND metadata->>'userId' = ${userId}
    GROUP BY stream_id`.execute(t.runtime.database.db);
  return [...new Set(rows.map((row) => Number(row.imports)))];
}

describe('bank link sync', () => {
  let t: TestApp;
  let hooks: BankLinkSyncHooks = {};
  beforeAll(async () => {
    t = await startTestApp({ env: { LINK_TOKEN_KEY }, jobs: jobsWith({ afterPage: (page, n) => hooks.afterPage?.(page, n), afterPageApplied: (page, n) => hooks.afterPageApplied?.(page, n) }) });
  }, 180_000);
  afterAll(async () => {
    await t.close();
  }, 180_000);
  afterEach(() => {
    hooks = {};
  }, 180_000);

  it("lists the item's year of transactions after the first sync, queued by linking it: source bank_link, on the item's accounts, each exactly once", async () => {
    const { key, userId } = await t.newUser();
    const started = Date.now();
    const item = await linkAnItem(t, key);
    await t.settle();
    const firstSyncMs = Date.now() - started;
    const history = await (await sandboxOf(t)).itemHistory(item.linkItemId);
    const expected = history.transactions.map((transaction) => importedTransactionIdOf(userId, item.linkItemId, transaction.transactionId)).sort();
    expect(await listedIds(t, userId)).toEqual(expected);
    expect(await importsPerStream(t, userId)).toEqual([1]);
    process.stdout.write(`first sync of one item: ${expected.length} transactions listed ${firstSyncMs} ms after POST /link/items\n`);

    const accountIds = new Set(history.accounts.map((account) => linkedAccountIdOf(userId, item.linkItemId, account.linkAccountId)));
    // The sync ends with the provider's balances of today on the item's accounts.
    for (const account of history.accounts) {
      const shown = (await t.as(key).get(`/v1/accounts/${linkedAccountIdOf(userId, item.linkItemId, account.linkAccountId)}`).expect(200)).body as { current: number | null };
      expect([account.linkAccountId, shown.current]).toEqual([account.linkAccountId, Number(account.balances.current)]);
    }
    const page = (await t.as(key).get('/v1/transactions?limit=100').expect(200)).body.transactions as { source: string; accountId: string; linkAccountId: string; pending: boolean; date: string }[];
    expect(page).toHaveLength(100);
    for (const transaction of page) {
      expect(transaction.source).toBe('bank_link');
      expect(accountIds.has(transaction.accountId)).toBe(true);
      expect(transaction.linkAccountId).toEqual(expect.any(String));
    }
    expect(page.some((transaction) => transaction.pending)).toBe(true);
    const dates = expected.length > 0 ? await t.runtime.database.db.selectFrom('transactions').select([sql<string>`min(date)::text`.as('first'), sql<string>`max(date)::text`.as('last')]).where('user_id', '=', userId).executeTakeFirstOrThrow() : null;
    expect(Date.parse(dates!.last) - Date.parse(dates!.first)).toBeGreaterThan(300 * 86_400_000);

    // Syncing again finds nothing new and appends nothing.
    const before = await t.runtime.eventStore.committedHeadPosition();
    await t.as(key).post(`/v1/link/items/${item.linkItemId}/sync`).expect(200, { success: true, message: 'Sync queued' });
    await t.settle();
    expect(await t.runtime.eventStore.committedHeadPosition()).toEqual(before);
  }, 180_000);

  it("keeps the user's edits, notes and tags of a pending transaction when it posts, and the activity log tells the story", async () => {
    const { key, userId } = await t.newUser();
    const tag = (await t.as(key).post('/v1/tags', { name: 'Reimbursable', color: 'blue' }).expect(201)).body as { id: string };
    let linkItemId = '';
    let reached!: (pending: { providerId: string }) => void;
    const stopped = new Promise<{ providerId: string }>((resolve) => (reached = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const posted = new Map<string, string>();
    hooks = {
      // Stop after the first page holding a pending transaction whose posting comes in a later page.
      async afterPage(page: SyncPage) {
        if (posted.size === 0) {
          for (const transaction of (await (await sandboxOf(t)).itemHistory(linkItemId)).transactions) {
            if (transaction.pendingTransactionId) posted.set(transaction.pendingTransactionId, transaction.transactionId);
          }
        }
        const postedHere = new Set(page.added.map((transaction) => transaction.pendingTransactionId));
        const pending = page.added.find((transaction) => transaction.pending && posted.has(transaction.transactionId) && !postedHere.has(transaction.transactionId));
        if (!pending || hooks.afterPage === undefined) return;
        hooks = {};
        reached({ providerId: pending.transactionId });
        await released;
      },
    };
    const item = await linkAnItem(t, key, 'ins_100004');
    linkItemId = item.linkItemId;
    const { providerId } = await stopped;
    expect(await t.runtime.watch.waitFor(await t.runtime.eventStore.committedHeadPosition(), 60_000)).toBe(true);

    const pendingId = importedTransactionIdOf(userId, linkItemId, providerId);
    try {
    const pending = (await t.as(key).get(`/v1/transactions/${pendingId}`).expect(200)).body;
    expect(pending).toMatchObject({ pending: true, source: 'bank_link' });
    await t.as(key).patch(`/v1/transactions/${pendingId}`, { name: 'Team lunch', notes: 'claim it back' }).expect(200);
    await t.as(key).put(`/v1/transactions/${pendingId}/tags`, { tagIds: [tag.id] }).expect(200);

    } finally {
      release();
    }
    await t.settle();

    const postedId = importedTransactionIdOf(userId, linkItemId, posted.get(providerId)!);
    await t.as(key).get(`/v1/transactions/${pendingId}`).expect(404);
    const after = (await t.as(key).get(`/v1/transactions/${postedId}`).expect(200)).body;
    expect(after).toMatchObject({ pending: false, name: 'Team lunch', notes: 'claim it back', tagIds: [tag.id] });
    expect(after.lockedFields).toEqual(expect.arrayContaining(['name', 'notes', 'tags']));

    const story = (await t.as(key).get(`/v1/transactions/${postedId}/activity`).expect(200)).body.events as { field: string; actor: string; oldValue: unknown; newValue: unknown }[];
    expect(story.map((entry) => [entry.field, entry.actor, entry.newValue])).toEqual(
      expect.arrayContaining([
        ['name', 'system', 'Team lunch'],
        ['notes', 'system', 'claim it back'],
        ['tags', 'system', [tag.id]],
      ]),
    );
    // The pending one's history ends with its retirement: the values it had when its posted one took its place.
    const retired = (await t.as(key).get(`/v1/transactions/${pendingId}/activity`).expect(200)).body.events as { kind: string; field: string; actor: string; oldValue?: unknown; newValue?: unknown }[];
    expect(retired[0]).toMatchObject({ kind: 'created', actor: 'system', field: 'name' });
    const departure = retired.filter((entry) => entry.kind === 'deleted');
    expect(departure.map((entry) => [entry.field, entry.actor, entry.oldValue])).toEqual(expect.arrayContaining([['name', 'system', 'Team lunch'], ['notes', 'system', 'claim it back'], ['tags', 'system', [tag.id]]]));
    expect(departure.every((entry) => !('newValue' in entry))).toBe(true);
    expect(retired.slice(-departure.length)).toEqual(departure);
    const pendingStream = await t.runtime.eventStore.readStream(`transaction-${pendingId}`);
    // The provider drops the pending id and adds the posted one as two changes of its log: when a
    // page ends between them, the removal is applied first, and the retirement still follows.
    const [removal] = pendingStream.slice(3, -1);
    expect(pendingStream.map((event) => [event.type, event.metadata.actor])).toEqual([
      ['TransactionImported', 'system'],
      ['TransactionEdited', 'user'],
      ['TagApplied', 'user'],
      ...(removal ? [['TransactionRemoved', 'system']] : []),
      ['TransactionReplaced', 'system'],
    ]);
    expect(pendingStream.at(-1)?.data).toMatchObject({ byTransactionId: postedId });
    const postedStream = await t.runtime.eventStore.readStream(`transaction-${postedId}`);
    expect(postedStream[0].data).toMatchObject({ replacesTransactionId: pendingId });
    expect(postedStream[1].data).toMatchObject({ carriedFromTransactionId: pendingId });
  }, 180_000);

  it("answers 404 for another user's item", async () => {
    const owner = await t.newUser();
    const other = await t.newUser();
    const item = await linkAnItem(t, owner.key);
    await t.as(other.key).post(`/v1/link/items/${item.linkItemId}/sync`).expect(404);
    await t.settle();
  }, 180_000);
});

describe('bank link sync across a restart', () => {
  it('resumes a sync stopped part-way after a restart on the same database: nothing duplicated, nothing lost', async () => {
    let stop!: (error: Error) => void;
    const killed = new Promise<never>((_, reject) => (stop = reject));
    killed.catch(() => undefined);
    let reachedPage!: () => void;
    const reached = new Promise<void>((resolve) => (reachedPage = resolve));
    const first = await startTestApp({
      env: { LINK_TOKEN_KEY },
      jobs: jobsWith({
        // Page 3's transactions are written, its cursor is not: the worst place to die.
        async afterPageApplied(_page, pageNumber) {
          if (pageNumber !== 3) return;
          reachedPage();
          await killed;
        },
      }),
    });
    let restarted: TestApp | null = null;
    try {
      const { key, userId } = await first.newUser();
      const item = await linkAnItem(first, key, 'ins_100001');
      await reached;
      await first.app.close();
      const closing = first.runtime.close();
      stop(new Error('process killed mid-sync'));
      await closing;

      restarted = await startTestApp({ env: { DATABASE_URL: first.runtime.database.url, LINK_TOKEN_KEY } });
      await restarted.as(key).post(`/v1/link/items/${item.linkItemId}/sync`).expect(200);
      await restarted.settle();
      const history = await (await sandboxOf(restarted)).itemHistory(item.linkItemId);
      const expected = history.transactions.map((transaction) => importedTransactionIdOf(userId, item.linkItemId, transaction.transactionId)).sort();
      expect(await listedIds(restarted, userId)).toEqual(expected);
      expect(await importsPerStream(restarted, userId)).toEqual([1]);
    } finally {
      await restarted?.close();
      await first.close().catch(() => undefined);
    }
  }, 180_000);
});

describe('bank link sync as days pass', () => {
  it("brings the provider's new days and today's balances through the scheduled sync, with no call from the user", async () => {
    let now = new Date('2026-11-20T12:00:00.000Z');
    const t = await startTestApp({ env: { LINK_TOKEN_KEY }, clock: { now: () => now } });
    try {
      const { key, userId } = await t.newUser();
      const item = await linkAnItem(t, key);
      await t.settle();
      const before = await listedIds(t, userId);

      now = new Date('2026-12-04T12:00:00.000Z');
      // What the schedule's timer does every BANK_LINK_SYNC_INTERVAL_MINUTES.
      await t.runtime.jobs.enqueue(BANK_LINK_SCHEDULED_SYNC_JOB, {}, { jobId: 'scheduled-by-the-test' });
      await t.settle();

      const history = await (await sandboxOf(t)).itemHistory(item.linkItemId);
      const expected = history.transactions.map((transaction) => importedTransactionIdOf(userId, item.linkItemId, transaction.transactionId)).sort();
      const after = await listedIds(t, userId);
      expect(after).toEqual(expected);
      expect(after.filter((id) => !before.includes(id)).length).toBeGreaterThan(10);
      expect(history.transactions.some((transaction) => transaction.date > '2026-11-27')).toBe(true);
      for (const account of history.accounts) {
        const shown = (await t.as(key).get(`/v1/accounts/${linkedAccountIdOf(userId, item.linkItemId, account.linkAccountId)}`).expect(200)).body as { current: number | null };
        expect([account.linkAccountId, shown.current]).toEqual([account.linkAccountId, Number(account.balances.current)]);
      }
      expect(await importsPerStream(t, userId)).toEqual([1]);
    } finally {
      await t.close();
    }
  }, 180_000);
});
