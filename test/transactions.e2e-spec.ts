import { systemCategoryId } from '../src/modules/categories/user-categories.js';
import { startTestApp, type TestApp } from './support/test-app.js';

let t: TestApp;
let key: string;
let userId: string;
let accountId: string;

beforeAll(async () => {
  t = await startTestApp();
  ({ key, userId, accountId } = await t.newUserWithAccount());
});
afterAll(() => t.close());

const newTransaction = (overrides: Record<string, unknown> = {}) => t.as(key).post('/v1/transactions', { accountId, amount: -12.5, date: '2026-11-20', name: 'Corner Cafe', ...overrides }).expect(201);

describe('transactions', () => {
  it('creates a transaction with its optional fields and returns it in the full schema', async () => {
    const { body } = await newTransaction({
      merchantName: 'Corner Cafe Ltd',
      categoryId: systemCategoryId(userId, 'FOOD_AND_DRINK_GROCERIES'),
      notes: 'with Sam',
      paymentChannel: 'in store',
      location: { city: 'Lisbon', lat: 38.72 },
      authorizedDate: '2026-11-19',
      pending: true,
    });
    expect(body).toMatchObject({
      accountId,
      accountName: 'Checking',
      accountType: 'bank',
      accountSubtype: 'checking',
      amount: -12.5,
      date: '2026-11-20',
      authorizedDate: '2026-11-19',
      name: 'Corner Cafe',
      merchantName: 'Corner Cafe Ltd',
      notes: 'with Sam',
      paymentChannel: 'in store',
      pending: true,
      source: 'manual',
      lockedFields: [],
      tagIds: [],
      category: { id: systemCategoryId(userId, 'FOOD_AND_DRINK_GROCERIES'), name: 'Groceries', systemKey: 'FOOD_AND_DRINK_GROCERIES', groupName: 'Food and drink', groupSystemKey: 'FOOD_AND_DRINK', iconKey: expect.any(String) },
      location: { address: null, city: 'Lisbon', country: null, postal_code: null, region: null, store_number: null, lat: 38.72, lon: null },
    });
    await t.as(key).get(`/v1/transactions/${body.id}`).expect(200);
  });

  it('refuses a non-manual or unknown account, an unknown category or tag, and bad values', async () => {
    await t.as(key).post('/v1/transactions', { accountId: '00000000-0000-4000-8000-000000000000', amount: 1, date: '2026-11-20', name: 'x' }).expect(404);
    const badCategory = await t.as(key).post('/v1/transactions', { accountId, amount: 1, date: '2026-11-20', name: 'x', categoryId: '00000000-0000-4000-8000-000000000000' }).expect(422);
    expect(badCategory.body.error.issues[0].path).toEqual(['categoryId']);
    const badTag = await t.as(key).post('/v1/transactions', { accountId, amount: 1, date: '2026-11-20', name: 'x', tagIds: ['00000000-0000-4000-8000-000000000001'] }).expect(422);
    expect(badTag.body.error.issues[0].path).toEqual(['tagIds', 0]);
    const invalid = await t.as(key).post('/v1/transactions', { accountId, amount: 1.23456, date: '2026-02-30', name: '' }).expect(422);
    expect(invalid.body.error.issues.map((issue: { path: string[] }) => issue.path[0]).sort()).toEqual(['amount', 'date', 'name']);
    await t.as(key).post('/v1/transactions', { accountId, amount: 1, date: '2026-11-20', name: 'x', notes: 'n'.repeat(100_001) }).expect(422);
    await t.as(key).post('/v1/transactions', { accountId, amount: 1, date: '2026-11-20', name: 'x', notes: 'n'.repeat(100_000) }).expect(201);
  });

  it('edits sparsely, locks what it writes, restores with null, and logs every field change', async () => {
    const { body: created } = await newTransaction({ notes: 'first' });
    const edited = await t.as(key).patch(`/v1/transactions/${created.id}`, { amount: -13, name: 'Cafe' }).expect(200);
    expect(edited.body).toMatchObject({ amount: -13, name: 'Cafe', notes: 'first', lockedFields: ['amount', 'name'] });
    const restored = await t.as(key).patch(`/v1/transactions/${created.id}`, { name: null, notes: 'second' }).expect(200);
    expect(restored.body).toMatchObject({ amount: -13, name: 'Corner Cafe', notes: 'second', lockedFields: ['amount', 'notes'] });
    const activity = await t.as(key).get(`/v1/transactions/${created.id}/activity`).expect(200);
    const events = activity.body.events as { kind: string; field: string; oldValue: unknown; newValue: unknown; actor: string }[];
    expect(events.filter((e) => e.kind === 'edited').map((e) => [e.field, e.oldValue, e.newValue, e.actor])).toEqual([
      ['name', 'Corner Cafe', 'Cafe', 'user'],
      ['amount', -12.5, -13, 'user'],
      ['name', 'Cafe', 'Corner Cafe', 'user'],
      ['notes', 'first', 'second', 'user'],
    ]);
    await t.as(key).patch(`/v1/transactions/${created.id}`, { nmae: 'typo' }).expect(422);
    await t.as(key).patch(`/v1/transactions/${created.id}`, { pending: false }).expect(422);
  });

  it('loses no edit when many arrive at once', async () => {
    const { body: created } = await newTransaction();
    const notes = Array.from({ length: 12 }, (_, i) => `note ${i}`);
    const responses = await Promise.all(notes.map((note) => t.as(key).patch(`/v1/transactions/${created.id}`, { notes: note })));
    expect(responses.every((response) => response.status === 200)).toBe(true);
    const activity = await t.as(key).get(`/v1/transactions/${created.id}/activity`).expect(200);
    const edits = (activity.body.events as { kind: string; newValue: string }[]).filter((e) => e.kind === 'edited');
    expect(edits).toHaveLength(12);
    expect(edits.map((e) => e.newValue).sort()).toEqual([...notes].sort());
  });

  it('deletes idempotently and keeps the deleted transaction\'s history', async () => {
    const { body: created } = await newTransaction();
    await t.as(key).patch(`/v1/transactions/${created.id}`, { notes: 'kept' }).expect(200);
    expect((await t.as(key).delete(`/v1/transactions/${created.id}`).expect(200)).body.success).toBe(true);
    expect((await t.as(key).delete(`/v1/transactions/${created.id}`).expect(200)).body.success).toBe(true);
    expect((await t.as(key).delete('/v1/transactions/00000000-0000-4000-8000-000000000000').expect(200)).body.success).toBe(true);
    await t.as(key).get(`/v1/transactions/${created.id}`).expect(404);
    await t.as(key).patch(`/v1/transactions/${created.id}`, { notes: 'x' }).expect(404);
    const history = (await t.as(key).get(`/v1/transactions/${created.id}/activity`).expect(200)).body.events as { kind: string; field: string }[];
    expect(history.filter((e) => e.kind === 'edited').map((e) => e.field)).toEqual(['notes']);
    expect(history.filter((e) => e.kind === 'deleted').map((e) => e.field)).toEqual(['name', 'amount', 'date', 'notes']);
  });

  it('hides another user\'s transactions behind 404s and leaves them unchanged', async () => {
    const { body: created } = await newTransaction();
    const other = await t.newUser();
    await t.as(other.key).get(`/v1/transactions/${created.id}`).expect(404);
    await t.as(other.key).patch(`/v1/transactions/${created.id}`, { notes: 'hijack' }).expect(404);
    await t.as(other.key).get(`/v1/transactions/${created.id}/activity`).expect(404);
    await t.as(other.key).delete(`/v1/transactions/${created.id}`).expect(200);
    expect((await t.as(key).get(`/v1/transactions/${created.id}`).expect(200)).body.notes).toBeNull();
    expect((await t.as(other.key).get('/v1/transactions').expect(200)).body.transactions).toEqual([]);
  });
});

describe('listing transactions', () => {
  let listUser: { key: string; userId: string };
  let accounts: string[];

  beforeAll(async () => {
    listUser = await t.newUser();
    accounts = [];
    for (const name of ['A', 'B']) accounts.push((await t.as(listUser.key).post('/v1/accounts', { name, type: 'bank', subtype: 'checking', currentBalance: 0 }).expect(201)).body.id);
    for (let i = 0; i < 30; i += 1) {
      await t.as(listUser.key).post('/v1/transactions', { accountId: accounts[i % 2], amount: -i, date: `2026-10-${String((i % 10) + 1).padStart(2, '0')}`, name: `t${i}` }).expect(201);
    }
  });

  async function walk(query: string, limit: number, between?: () => Promise<void>): Promise<Array<{ id: string; date: string }>> {
    const seen: Array<{ id: string; date: string }> = [];
    let cursor: string | null = null;
    do {
      const page: { body: { transactions: Array<{ id: string; date: string }>; hasMore: boolean; nextCursor: string | null } } = await t
        .as(listUser.key)
        .get(`/v1/transactions?limit=${limit}${query}${cursor ? `&cursor=${cursor}` : ''}`)
        .expect(200);
      seen.push(...page.body.transactions);
      expect(page.body.hasMore).toBe(page.body.nextCursor !== null);
      cursor = page.body.nextCursor;
      await between?.();
    } while (cursor);
    return seen;
  }

  it('pages newest first without skipping or repeating, even while new transactions arrive', async () => {
    const all = (await t.as(listUser.key).get('/v1/transactions?limit=500').expect(200)).body.transactions as Array<{ id: string; date: string }>;
    expect(all).toHaveLength(30);
    expect(all.map((row) => row.date)).toEqual([...all.map((row) => row.date)].sort().reverse());
    let added = 0;
    const walked = await walk('', 7, async () => {
      added += 1;
      await t.as(listUser.key).post('/v1/transactions', { accountId: accounts[0], amount: 1, date: '2026-10-05', name: `late${added}` }).expect(201);
    });
    const original = new Set(all.map((row) => row.id));
    const walkedIds = walked.map((row) => row.id);
    expect(new Set(walkedIds).size).toBe(walkedIds.length);
    expect(all.every((row) => walkedIds.includes(row.id))).toBe(true);
    expect(walkedIds.filter((id) => original.has(id))).toEqual(all.map((row) => row.id));
  });

  it('filters by repeated accountId and an inclusive date range', async () => {
    const onlyA = await walk(`&accountId=${accounts[0]}&startDate=2026-10-02&endDate=2026-10-04`, 2);
    expect(onlyA.length).toBeGreaterThan(0);
    const both = await walk(`&accountId=${accounts[0]}&accountId=${accounts[1]}&startDate=2026-10-02&endDate=2026-10-04`, 50);
    expect(both.every((row) => row.date >= '2026-10-02' && row.date <= '2026-10-04')).toBe(true);
    expect(both.length).toBe(9);
  });

  it('validates limit, dates, categoryGroup and cursor', async () => {
    for (const query of ['limit=0', 'limit=501', 'limit=abc', 'startDate=2026-13-01', 'categoryGroup=NOT_A_GROUP', 'cursor=garbage', 'accountId=nope', 'startDate=2026-10-05&endDate=2026-10-01']) {
      const response = await t.as(listUser.key).get(`/v1/transactions?${query}`);
      expect([query, response.status]).toEqual([query, 422]);
      expect(response.body.success).toBe(false);
    }
    expect((await t.as(listUser.key).get('/v1/transactions?categoryGroup=FOOD_AND_DRINK&categoryGroup=INCOME').expect(200)).body.transactions).toEqual([]);
    const page = await t.as(listUser.key).get('/v1/transactions?limit=1').expect(200);
    await t.as(key).get(`/v1/transactions?cursor=${page.body.nextCursor}`).expect(422);
  });
});
