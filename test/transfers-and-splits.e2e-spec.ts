import { systemCategoryId } from '../src/modules/categories/user-categories.js';
import { startTestApp, type TestApp } from './support/test-app.js';

const MISSING = '00000000-0000-4000-8000-000000000000';

interface Transfer {
  transactionId: string;
  accountId: string;
}

describe('transfers and splits', () => {
  let t: TestApp;
  beforeAll(async () => {
    // Settling waits for every queued job, the debounced recurring refresh among them.
    t = await startTestApp({ env: { RECURRING_REFRESH_DEBOUNCE_MS: '20' } });
  }, 180_000);
  afterAll(async () => {
    await t.close();
  }, 180_000);

  const today = () => new Date().toISOString().slice(0, 10);
  const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 10);

  async function userWithAccounts() {
    const { key, userId, accountId: checking } = await t.newUserWithAccount();
    const savings = (await t.as(key).post('/v1/accounts', { name: 'Savings', type: 'bank', subtype: 'savings', currentBalance: 5000 }).expect(201)).body.id as string;
    const brokerageCash = (await t.as(key).post('/v1/accounts', { name: 'Emergency fund', type: 'bank', subtype: 'savings', currentBalance: 0 }).expect(201)).body.id as string;
    return { key, userId, checking, savings, brokerageCash };
  }

  const create = async (key: string, body: Record<string, unknown>) => (await t.as(key).post('/v1/transactions', body).expect(201)).body as { id: string; transfer: Transfer | null };
  const transferOf = async (key: string, id: string) => (await t.as(key).get(`/v1/transactions/${id}`).expect(200)).body.transfer as Transfer | null;
  const spendingTotal = async (key: string) => (await t.as(key).get('/v1/spending?period=1m').expect(200)).body.totalSpending as number;

  /** Reactions queue jobs whose events queue more (a pairing's events ask to reconcile it): settled three times over, every one has run. */
  async function settled() {
    for (let round = 0; round < 3; round += 1) await t.settle();
  }

  it('pairs a transfer between checking and savings automatically; the pair leaves spending and income', async () => {
    const { key, checking, savings } = await userWithAccounts();
    await create(key, { accountId: checking, amount: -42.5, date: today(), name: 'Grocer', categoryId: undefined });
    expect(await spendingTotal(key)).toBe(42.5);

    const out = await create(key, { accountId: checking, amount: -500, date: daysAgo(2), name: 'Transfer to savings' });
    const into = await create(key, { accountId: savings, amount: 500, date: daysAgo(1), name: 'Transfer from checking' });
    await settled();

    expect(await transferOf(key, out.id)).toEqual({ transactionId: into.id, accountId: savings });
    expect(await transferOf(key, into.id)).toEqual({ transactionId: out.id, accountId: checking });
    expect(await spendingTotal(key)).toBe(42.5);

    const activity = (await t.as(key).get(`/v1/transactions/${out.id}/activity`).expect(200)).body.events as { field: string; actor: string; oldValue: unknown; newValue: unknown }[];
    expect(activity.filter((entry) => entry.field === 'transfer')).toEqual([expect.objectContaining({ actor: 'system', oldValue: null, newValue: { transactionId: into.id, accountId: savings } })]);

    const listed = (await t.as(key).get(`/v1/transactions?accountId=${savings}`).expect(200)).body.transactions as { id: string; transfer: Transfer | null }[];
    expect(listed.find((row) => row.id === into.id)?.transfer).toEqual({ transactionId: out.id, accountId: checking });
  });

  it('leaves monthly transfers out of recurring detection, which finds them once they are unpaired', async () => {
    const { key, checking, savings } = await userWithAccounts();
    const pairs: { out: string; into: string }[] = [];
    // Every 30 days up to yesterday, the savings side a day later.
    for (let month = 0; month < 6; month += 1) {
      const out = await create(key, { accountId: checking, amount: -200, date: daysAgo(1 + 30 * month), name: 'Monthly savings' });
      const into = await create(key, { accountId: savings, amount: 200, date: daysAgo(30 * month), name: 'Monthly savings' });
      pairs.push({ out: out.id, into: into.id });
    }
    await settled();
    for (const { out, into } of pairs) expect(await transferOf(key, out)).toEqual({ transactionId: into, accountId: savings });
    expect((await t.as(key).get('/v1/recurring').expect(200)).body.streams).toEqual([]);

    for (const { out } of pairs) await t.as(key).delete(`/v1/transactions/${out}/transfer`).expect(200);
    await settled();
    const streams = (await t.as(key).get('/v1/recurring').expect(200)).body.streams as { accountId: string }[];
    expect(streams.map((stream) => stream.accountId).sort()).toEqual([checking, savings].sort());
  });

  it('pairs the closest dates first, never two in one account, never amounts that do not mirror', async () => {
    const { key, checking, savings } = await userWithAccounts();
    const far = await create(key, { accountId: savings, amount: 200, date: daysAgo(5), name: 'In, far' });
    const sameAccount = await create(key, { accountId: checking, amount: 200, date: daysAgo(2), name: 'Refund' });
    const notMirrored = await create(key, { accountId: savings, amount: 200.01, date: daysAgo(2), name: 'Interest-ish' });
    const close = await create(key, { accountId: savings, amount: 200, date: daysAgo(1), name: 'In, close' });
    const out = await create(key, { accountId: checking, amount: -200, date: daysAgo(2), name: 'Out' });
    await settled();
    expect(await transferOf(key, out.id)).toEqual({ transactionId: close.id, accountId: savings });
    for (const id of [far.id, sameAccount.id, notMirrored.id]) expect(await transferOf(key, id)).toBeNull();
  });

  it('unpairs by hand for good, pairs by hand, and refuses what is not a pair', async () => {
    const { key, checking, savings, brokerageCash } = await userWithAccounts();
    const out = await create(key, { accountId: checking, amount: -300, date: daysAgo(3), name: 'Out' });
    const into = await create(key, { accountId: savings, amount: 300, date: daysAgo(3), name: 'In' });
    await settled();
    expect(await transferOf(key, out.id)).not.toBeNull();

    const unpaired = (await t.as(key).delete(`/v1/transactions/${out.id}/transfer`).expect(200)).body;
    expect(unpaired.transfer).toBeNull();
    expect(await transferOf(key, into.id)).toBeNull();
    expect(await spendingTotal(key)).toBe(300);

    // A change of the date asks for pairing again: the pair the user undid stays undone, another mirror is taken.
    await t.as(key).patch(`/v1/transactions/${into.id}`, { date: daysAgo(2) }).expect(200);
    const third = await create(key, { accountId: brokerageCash, amount: 300, date: daysAgo(3), name: 'Into the fund' });
    await settled();
    expect(await transferOf(key, out.id)).toEqual({ transactionId: third.id, accountId: brokerageCash });
    expect(await transferOf(key, into.id)).toBeNull();

    // By hand: the pair with the third is replaced, and its other side is released; under the transaction's current ETag.
    await t.as(key).put(`/v1/transactions/${out.id}/transfer`, { transactionId: into.id }).set('If-Match', '"0"').expect(412);
    const etag = (await t.as(key).get(`/v1/transactions/${out.id}`).expect(200)).headers.etag as string;
    const paired = (await t.as(key).put(`/v1/transactions/${out.id}/transfer`, { transactionId: into.id }).set('If-Match', etag).expect(200)).body;
    expect(paired.transfer).toEqual({ transactionId: into.id, accountId: savings });
    expect(await transferOf(key, into.id)).toEqual({ transactionId: out.id, accountId: checking });
    expect(await transferOf(key, third.id)).toBeNull();
    await settled();
    expect(await transferOf(key, third.id)).toBeNull();

    const sameAccount = await create(key, { accountId: checking, amount: 300, date: daysAgo(3), name: 'Same account' });
    const notMirrored = await create(key, { accountId: savings, amount: 299, date: daysAgo(3), name: 'Not mirrored' });
    for (const transactionId of [sameAccount.id, notMirrored.id, out.id]) {
      const refused = (await t.as(key).put(`/v1/transactions/${out.id}/transfer`, { transactionId }).expect(400)).body;
      expect(refused.code).toBe('NOT_A_TRANSFER_PAIR');
    }
    await t.as(key).put(`/v1/transactions/${out.id}/transfer`, { transactionId: MISSING }).expect(404);
    await t.as(key).put(`/v1/transactions/${MISSING}/transfer`, { transactionId: out.id }).expect(404);
    const issues = (await t.as(key).put(`/v1/transactions/${out.id}/transfer`, { transactionId: 'nope' }).expect(422)).body.error.issues;
    expect(issues.map((issue: { path: unknown[] }) => issue.path)).toEqual([['transactionId']]);
  });

  it("dissolves a pair whose side is deleted or whose amount changes", async () => {
    const { key, checking, savings } = await userWithAccounts();
    const out = await create(key, { accountId: checking, amount: -75, date: daysAgo(1), name: 'Out' });
    const into = await create(key, { accountId: savings, amount: 75, date: daysAgo(1), name: 'In' });
    await settled();
    expect(await transferOf(key, into.id)).not.toBeNull();
    await t.as(key).delete(`/v1/transactions/${out.id}`).expect(200);
    await settled();
    expect(await transferOf(key, into.id)).toBeNull();

    const again = await create(key, { accountId: checking, amount: -75, date: daysAgo(1), name: 'Out again' });
    await settled();
    expect(await transferOf(key, into.id)).toEqual({ transactionId: again.id, accountId: checking });
    const edited = (await t.as(key).patch(`/v1/transactions/${again.id}`, { amount: -80 }).expect(200)).body;
    expect(edited.transfer).toBeNull();
    await settled();
    expect(await transferOf(key, into.id)).toBeNull();
  });

  it("keeps another user's transactions out of every pair", async () => {
    const mine = await userWithAccounts();
    const theirs = await userWithAccounts();
    const out = await create(mine.key, { accountId: mine.checking, amount: -60, date: today(), name: 'Out' });
    const into = await create(theirs.key, { accountId: theirs.savings, amount: 60, date: today(), name: 'In' });
    await settled();
    expect(await transferOf(mine.key, out.id)).toBeNull();
    await t.as(mine.key).put(`/v1/transactions/${out.id}/transfer`, { transactionId: into.id }).expect(404);
    await t.as(theirs.key).delete(`/v1/transactions/${out.id}/transfer`).expect(404);
    await t.as(theirs.key).put(`/v1/transactions/${out.id}/splits`, { splits: [] }).expect(404);
  });

  it('splits a transaction so that spending counts each part under its own category', async () => {
    const { key, userId, checking } = await userWithAccounts();
    const groceries = systemCategoryId(userId, 'FOOD_AND_DRINK_GROCERIES');
    const household = systemCategoryId(userId, 'GENERAL_MERCHANDISE_OTHER_GENERAL_MERCHANDISE');
    const cashOut = systemCategoryId(userId, 'TRANSFER_OUT_WITHDRAWAL');
    const shop = await create(key, { accountId: checking, amount: -100, date: today(), name: 'Hypermarket', categoryId: groceries });
    expect(await spendingTotal(key)).toBe(100);

    const split = (await t.as(key).put(`/v1/transactions/${shop.id}/splits`, { splits: [{ amount: -60, categoryId: household, notes: 'towels' }, { amount: -40, categoryId: cashOut }] }).expect(200)).body;
    expect(split.splits).toEqual([
      { id: expect.any(String), amount: -60, category: expect.objectContaining({ id: household }), notes: 'towels' },
      { id: expect.any(String), amount: -40, category: expect.objectContaining({ id: cashOut, systemKey: 'TRANSFER_OUT_WITHDRAWAL' }), notes: null },
    ]);
    expect(split.category.id).toBe(groceries);
    // The cash withdrawn is a transfer, not spending: only the household part counts.
    expect(await spendingTotal(key)).toBe(60);
    const byCategory = await t.runtime.database.db.selectFrom('spending_daily').select(['category_id', 'outflow']).where('user_id', '=', userId).execute();
    expect(byCategory.map((row) => [row.category_id, Number(row.outflow)]).sort()).toEqual([[cashOut, 40], [household, 60]].sort());

    const refused = async (splits: unknown) => (await t.as(key).put(`/v1/transactions/${shop.id}/splits`, { splits }).expect(422)).body.error.issues.map((issue: { path: unknown[] }) => issue.path);
    expect(await refused([{ amount: -60 }, { amount: -39.99 }])).toEqual([['splits']]);
    expect(await refused([{ amount: -110 }, { amount: 10 }])).toEqual([['splits', 1, 'amount']]);
    expect(await refused([{ amount: -100 }])).toEqual([['splits']]);
    expect(await refused([{ amount: -50, categoryId: MISSING }, { amount: -50 }])).toEqual([['splits', 0, 'categoryId']]);
    expect(await refused([{ amount: -50, colour: 'red' }, { amount: -50 }])).toEqual([['splits', 0, 'colour']]);
    expect(await refused(Array(51).fill({ amount: -1 }))).toEqual([['splits']]);

    // A new amount clears the parts, and the history says so.
    const edited = (await t.as(key).patch(`/v1/transactions/${shop.id}`, { amount: -120 }).expect(200)).body;
    expect(edited.splits).toEqual([]);
    expect(await spendingTotal(key)).toBe(120);
    const activity = (await t.as(key).get(`/v1/transactions/${shop.id}/activity`).expect(200)).body.events as { field: string; newValue: unknown }[];
    expect(activity.filter((entry) => entry.field === 'splits').map((entry) => entry.newValue)).toEqual([
      [
        { id: expect.any(String), amount: -60, categoryId: household, notes: 'towels' },
        { id: expect.any(String), amount: -40, categoryId: cashOut, notes: null },
      ],
      [],
    ]);

    await t.as(key).put(`/v1/transactions/${shop.id}/splits`, { splits: [{ amount: -20, categoryId: cashOut }, { amount: -100 }] }).expect(200);
    expect(await spendingTotal(key)).toBe(100);
    // Written against a version the transaction no longer has: 412, nothing changes.
    const stale = await t.as(key).put(`/v1/transactions/${shop.id}/splits`, { splits: [] }).set('If-Match', '"0"').expect(412);
    expect(stale.body.code).toBe('PRECONDITION_FAILED');
    const removed = (await t.as(key).put(`/v1/transactions/${shop.id}/splits`, { splits: [] }).expect(200)).body;
    expect(removed.splits).toEqual([]);
    expect(await spendingTotal(key)).toBe(120);
  });
});
