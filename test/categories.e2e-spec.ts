import { CATEGORY_GROUP_KEYS } from '../src/modules/categories/system-taxonomy.js';
import { systemCategoryId, systemGroupId } from '../src/modules/categories/user-categories.js';
import { sql } from 'kysely';
import { startTestApp, type TestApp } from './support/test-app.js';

interface Category {
  id: string;
  name: string;
  groupId: string;
  systemKey: string | null;
  order: number;
  hidden: boolean;
}
interface Group {
  id: string;
  name: string;
  systemKey: string | null;
  order: number;
}

let t: TestApp;
let key: string;
let accountId: string;

beforeAll(async () => {
  t = await startTestApp();
  ({ key, accountId } = await t.newUserWithAccount());
});
afterAll(() => t.close());

const taxonomy = async (apiKey = key): Promise<{ categories: Category[]; groups: Group[] }> => (await t.as(apiKey).get('/v1/categories').expect(200)).body;
const groupOf = (groups: Group[], systemKey: string) => groups.find((group) => group.systemKey === systemKey) as Group;
const categoryOf = (categories: Category[], systemKey: string) => categories.find((category) => category.systemKey === systemKey) as Category;
const newTransaction = (fields: Record<string, unknown>) => t.as(key).post('/v1/transactions', { accountId, amount: -4.5, date: '2026-11-20', name: 'Corner Cafe', ...fields }).expect(201);
const isSorted = (items: Array<{ order: number }>) => items.every((item, index) => index === 0 || items[index - 1].order <= item.order);

describe('categories', () => {
  it('lists the system taxonomy from the start: 16 groups with stable systemKeys, each list sorted by order', async () => {
    const { categories, groups } = await taxonomy();
    expect(groups.map((group) => group.systemKey).sort()).toEqual([...CATEGORY_GROUP_KEYS].sort());
    expect(categories.length).toBeGreaterThan(80);
    expect(isSorted(groups) && isSorted(categories)).toBe(true);
    expect(categoryOf(categories, 'FOOD_AND_DRINK_COFFEE')).toEqual({
      id: expect.any(String),
      name: 'Coffee',
      iconKey: 'coffee',
      groupId: groupOf(groups, 'FOOD_AND_DRINK').id,
      hidden: false,
      excludeFromInsights: false,
      order: expect.any(Number),
      systemKey: 'FOOD_AND_DRINK_COFFEE',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    // Reference data joined when read: a second look is the same taxonomy.
    expect(await taxonomy()).toEqual({ categories, groups });
  });

  it('creates a category of the user under an existing group, refusing an unknown group and a taken name', async () => {
    const { groups } = await taxonomy();
    const food = groupOf(groups, 'FOOD_AND_DRINK');
    const { body } = await t.as(key).post('/v1/categories', { groupId: food.id, iconKey: 'cake', name: 'Bakery' }).expect(201);
    expect(body).toMatchObject({ name: 'Bakery', iconKey: 'cake', groupId: food.id, systemKey: null, hidden: false, excludeFromInsights: false });
    expect((await taxonomy()).categories.map((category) => category.id)).toContain(body.id);
    const taken = await t.as(key).post('/v1/categories', { groupId: food.id, iconKey: 'cake', name: ' bakery ' }).expect(409);
    expect(taken.body).toEqual({ code: 'CATEGORY_NAME_TAKEN', error: expect.any(String) });
    await t.as(key).post('/v1/categories', { groupId: groupOf(groups, 'TRAVEL').id, iconKey: 'cake', name: 'Bakery' }).expect(201);
    const unknown = await t.as(key).post('/v1/categories', { groupId: '00000000-0000-4000-8000-000000000000', iconKey: 'cake', name: 'Pastry' }).expect(400);
    expect(unknown.body).toEqual({ code: 'CATEGORY_GROUP_NOT_FOUND', error: expect.any(String) });
    await t.as(key).post('/v1/categories', { groupId: food.id, iconKey: 'Not An Icon', name: 'Pastry' }).expect(422);
    await t.as(key).post('/v1/categories', { groupId: food.id, iconKey: 'cake', name: '   ' }).expect(422);
    await t.as(key).post('/v1/categories', { groupId: food.id, iconKey: 'cake', name: 'Pastry', systemKey: 'X' }).expect(422);
  });

  it("refuses another user's group as unknown (CATEGORY_GROUP_NOT_FOUND)", async () => {
    const other = await t.newUser();
    const theirs = groupOf((await taxonomy(other.key)).groups, 'FOOD_AND_DRINK');
    const refused = await t.as(key).post('/v1/categories', { groupId: theirs.id, iconKey: 'cake', name: 'Theirs' }).expect(400);
    expect(refused.body.code).toBe('CATEGORY_GROUP_NOT_FOUND');
  });

  it('gives one 201 and one 409 to two concurrent creates of the same name in one group', async () => {
    const { groups } = await taxonomy();
    const group = groupOf(groups, 'ENTERTAINMENT').id;
    const statuses = await Promise.all([0, 1].map(() => t.as(key).post('/v1/categories', { groupId: group, iconKey: 'dice', name: 'Board games' })));
    expect(statuses.map((response) => response.status).sort()).toEqual([201, 409]);
    // Also on a user's very first touch (system ids are known ahead).
    const fresh = await t.newUser();
    const freshGroup = systemGroupId(fresh.userId, 'ENTERTAINMENT');
    const racing = await Promise.all([0, 1, 2].map(() => t.as(fresh.key).post('/v1/categories', { groupId: freshGroup, iconKey: 'dice', name: 'Chess' })));
    expect(racing.map((response) => response.status).sort()).toEqual([201, 409, 409]);
  });

  it('creates a group of the user, which takes categories', async () => {
    const { body: group } = await t.as(key).post('/v1/categories/groups', { name: 'Hobbies' }).expect(201);
    expect(group).toEqual({ id: expect.any(String), name: 'Hobbies', order: 16, systemKey: null, createdAt: expect.any(String), updatedAt: expect.any(String) });
    expect((await t.as(key).post('/v1/categories/groups', { name: 'HOBBIES' }).expect(409)).body.code).toBe('CATEGORY_GROUP_NAME_TAKEN');
    const { body: category } = await t.as(key).post('/v1/categories', { groupId: group.id, iconKey: 'brush', name: 'Painting' }).expect(201);
    expect(category).toMatchObject({ groupId: group.id, order: 0 });
    expect((await taxonomy()).groups.map((g) => g.id)).toContain(group.id);
  });

  it('edits a category sparsely: rename, icon, hide, exclude, reorder, move; unknown group 400, unknown category 404', async () => {
    const { categories, groups } = await taxonomy();
    const gym = categoryOf(categories, 'PERSONAL_CARE_GYMS_AND_FITNESS_CENTERS');
    const edited = await t.as(key).patch(`/v1/categories/${gym.id}`, { name: 'Climbing gym', iconKey: 'mountain', hidden: true, excludeFromInsights: true, order: 9 }).expect(200);
    expect(edited.body).toMatchObject({ id: gym.id, name: 'Climbing gym', iconKey: 'mountain', hidden: true, excludeFromInsights: true, order: 9, groupId: gym.groupId, systemKey: 'PERSONAL_CARE_GYMS_AND_FITNESS_CENTERS' });
    expect(edited.body.updatedAt >= edited.body.createdAt).toBe(true);
    const moved = await t.as(key).patch(`/v1/categories/${gym.id}`, { groupId: groupOf(groups, 'ENTERTAINMENT').id }).expect(200);
    expect(moved.body).toMatchObject({ groupId: groupOf(groups, 'ENTERTAINMENT').id, name: 'Climbing gym' });
    expect((await t.as(key).patch(`/v1/categories/${gym.id}`, { groupId: '00000000-0000-4000-8000-000000000000' }).expect(400)).body.code).toBe('CATEGORY_GROUP_NOT_FOUND');
    expect((await t.as(key).patch(`/v1/categories/${gym.id}`, { name: 'video GAMES' }).expect(409)).body.code).toBe('CATEGORY_NAME_TAKEN');
    await t.as(key).patch('/v1/categories/00000000-0000-4000-8000-000000000000', { hidden: true }).expect(404);
    await t.as(key).patch('/v1/categories/not-a-uuid', { hidden: true }).expect(404);
    await t.as(key).patch(`/v1/categories/${gym.id}`, { name: null }).expect(422);
    await t.as(key).patch(`/v1/categories/${gym.id}`, { order: -1 }).expect(422);
    await t.as(key).patch(`/v1/categories/${gym.id}`, { systemKey: 'X' }).expect(422);
    expect((await t.as(key).patch(`/v1/categories/${gym.id}`, {}).expect(200)).body).toEqual(moved.body);
  });
});

describe('categories on transactions', () => {
  it("appends exactly one event to one stream on a new user's first PATCH naming a system category, and none on listing categories", async () => {
    const fresh = await t.newUser();
    const freshAccount = (await t.as(fresh.key).post('/v1/accounts', { name: 'Cash', type: 'bank', subtype: 'checking', currentBalance: 0 }).expect(201)).body.id;
    const created = (await t.as(fresh.key).post('/v1/transactions', { accountId: freshAccount, amount: -3, date: '2026-11-20', name: 'Bean bar' }).expect(201)).body;
    const db = t.runtime.database.db;
    const head = async () => Number((await sql<{ head: string }>`SELECT coalesce(max(global_position), 0)::text AS head FROM events`.execute(db)).rows[0].head);
    const appendedSince = async (position: number) =>
      (await sql<{ stream_id: string; type: string }>`SELECT stream_id, type FROM events WHERE global_position > ${position} AND metadata->>'userId' = ${fresh.userId} ORDER BY global_position`.execute(db)).rows;
    const before = await head();
    const coffee = systemCategoryId(fresh.userId, 'FOOD_AND_DRINK_COFFEE');
    const patched = await t.as(fresh.key).patch(`/v1/transactions/${created.id}`, { categoryId: coffee }).expect(200);
    expect(patched.body.category).toMatchObject({ id: coffee, name: 'Coffee', groupId: systemGroupId(fresh.userId, 'FOOD_AND_DRINK'), groupSystemKey: 'FOOD_AND_DRINK' });
    await t.as(fresh.key).get('/v1/categories').expect(200);
    expect(await appendedSince(before)).toEqual([{ stream_id: `transaction-${created.id}`, type: 'TransactionEdited' }]);
  });

  it('validates categoryId against your own categories, a new user\'s system ones included', async () => {
    const fresh = await t.newUser();
    const freshAccount = (await t.as(fresh.key).post('/v1/accounts', { name: 'Cash', type: 'bank', subtype: 'checking', currentBalance: 0 }).expect(201)).body.id;
    const theirs = systemCategoryId(fresh.userId, 'FOOD_AND_DRINK_COFFEE');
    const created = await t.as(fresh.key).post('/v1/transactions', { accountId: freshAccount, amount: -1, date: '2026-11-20', name: 'x', categoryId: theirs }).expect(201);
    expect(created.body.category).toMatchObject({ id: theirs, name: 'Coffee', groupSystemKey: 'FOOD_AND_DRINK' });
    expect(categoryOf((await taxonomy(fresh.key)).categories, 'FOOD_AND_DRINK_COFFEE').id).toBe(theirs);
    // Another user's category is no category of theirs.
    const mine = categoryOf((await taxonomy()).categories, 'FOOD_AND_DRINK_COFFEE');
    const refused = await t.as(fresh.key).post('/v1/transactions', { accountId: freshAccount, amount: -1, date: '2026-11-20', name: 'x', categoryId: mine.id }).expect(422);
    expect(refused.body.error.issues[0].path).toEqual(['categoryId']);
    await t.as(fresh.key).patch(`/v1/transactions/${created.body.id}`, { categoryId: mine.id }).expect(422);
  });

  it('accepts a user category and shows its group', async () => {
    const { groups } = await taxonomy();
    const { body: mine } = await t.as(key).post('/v1/categories', { groupId: groupOf(groups, 'TRAVEL').id, iconKey: 'tent', name: 'Camping' }).expect(201);
    const { body } = await newTransaction({ categoryId: mine.id });
    expect(body.category).toEqual({ id: mine.id, name: 'Camping', iconKey: 'tent', systemKey: null, groupId: groupOf(groups, 'TRAVEL').id, groupName: 'Travel', groupSystemKey: 'TRAVEL' });
  });

  it('shows a rename, a move between groups and a hidden category on every transaction that carries it', async () => {
    const { categories, groups } = await taxonomy();
    const { body: mine } = await t.as(key).post('/v1/categories', { groupId: groupOf(groups, 'FOOD_AND_DRINK').id, iconKey: 'ice-cream', name: 'Ice cream' }).expect(201);
    const first = (await newTransaction({ categoryId: mine.id })).body;
    const second = (await newTransaction({ categoryId: mine.id })).body;
    await t.as(key).patch(`/v1/categories/${mine.id}`, { name: 'Gelato', hidden: true, groupId: groupOf(groups, 'TRAVEL').id }).expect(200);
    for (const transaction of [first, second]) {
      const { body } = await t.as(key).get(`/v1/transactions/${transaction.id}`).expect(200);
      expect(body.category).toEqual({ id: mine.id, name: 'Gelato', iconKey: 'ice-cream', systemKey: null, groupId: groupOf(groups, 'TRAVEL').id, groupName: 'Travel', groupSystemKey: 'TRAVEL' });
    }
    const listed = (await t.as(key).get('/v1/transactions?limit=500').expect(200)).body.transactions as Array<{ id: string; category: { name: string } | null }>;
    expect(listed.filter((transaction) => transaction.category?.name === 'Gelato').map((transaction) => transaction.id).sort()).toEqual([first.id, second.id].sort());
    // A hidden category can still be assigned.
    const third = (await newTransaction({ categoryId: mine.id })).body;
    expect(third.category.name).toBe('Gelato');
    // A system category renamed shows on its transactions too.
    const coffee = categoryOf(categories, 'FOOD_AND_DRINK_COFFEE');
    const espresso = (await newTransaction({ categoryId: coffee.id })).body;
    await t.as(key).patch(`/v1/categories/${coffee.id}`, { name: 'Espresso bars' }).expect(200);
    expect((await t.as(key).get(`/v1/transactions/${espresso.id}`).expect(200)).body.category).toMatchObject({ name: 'Espresso bars', systemKey: 'FOOD_AND_DRINK_COFFEE', groupSystemKey: 'FOOD_AND_DRINK' });
  });

  it('filters the list by categoryId and by categoryGroup, a moved category following its new group', async () => {
    const { categories, groups } = await taxonomy();
    const { body: mine } = await t.as(key).post('/v1/categories', { groupId: groupOf(groups, 'MEDICAL').id, iconKey: 'pill', name: 'Vitamins' }).expect(201);
    const rent = categoryOf(categories, 'RENT_AND_UTILITIES_RENT');
    const vitamins = (await newTransaction({ categoryId: mine.id, date: '2026-10-01' })).body;
    const rentPaid = (await newTransaction({ categoryId: rent.id, date: '2026-10-01' })).body;
    await newTransaction({ date: '2026-10-01' });
    const ids = async (query: string) =>
      ((await t.as(key).get(`/v1/transactions?startDate=2026-10-01&endDate=2026-10-01&${query}`).expect(200)).body.transactions as Array<{ id: string }>).map((x) => x.id).sort();
    expect(await ids(`categoryId=${mine.id}`)).toEqual([vitamins.id]);
    expect(await ids(`categoryId=${mine.id.toUpperCase()}`)).toEqual([vitamins.id]);
    expect(await ids('categoryGroup=MEDICAL')).toEqual([vitamins.id]);
    expect(await ids('categoryGroup=MEDICAL&categoryGroup=RENT_AND_UTILITIES')).toEqual([vitamins.id, rentPaid.id].sort());
    expect(await ids('categoryGroup=TRAVEL')).toEqual([]);
    await t.as(key).patch(`/v1/categories/${mine.id}`, { groupId: groupOf(groups, 'TRAVEL').id }).expect(200);
    expect(await ids('categoryGroup=MEDICAL')).toEqual([]);
    expect(await ids('categoryGroup=TRAVEL')).toEqual([vitamins.id]);
    expect(await ids(`categoryId=${rent.id}&categoryGroup=TRAVEL`)).toEqual([]);
    await t.as(key).get('/v1/transactions?categoryId=not-a-uuid').expect(422);
    await t.as(key).get('/v1/transactions?categoryGroup=NOT_A_GROUP').expect(422);
  });
});
