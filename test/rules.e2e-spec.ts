import { randomBytes, randomUUID } from 'node:crypto';
import { systemCategoryId } from '../src/modules/categories/user-categories.js';
import { ruleApplicationJob } from '../src/modules/rules/rule-application.job.js';
import { startTestApp, type TestApp } from './support/test-app.js';

const LINK_TOKEN_KEY = randomBytes(32).toString('base64');
const MISSING = '00000000-0000-4000-8000-000000000000';

interface ActivityEntry {
  kind: string;
  field: string;
  actor: string;
  newValue?: unknown;
  ruleId: string | null;
}

describe('rules', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ env: { LINK_TOKEN_KEY } });
  }, 180_000);
  afterAll(async () => {
    await t.close();
  }, 180_000);

  const coffee = (userId: string) => systemCategoryId(userId, 'FOOD_AND_DRINK_COFFEE');
  const groceries = (userId: string) => systemCategoryId(userId, 'FOOD_AND_DRINK_GROCERIES');

  it('creates, lists in order, changes and deletes rules; another user’s rule is a 404', async () => {
    const { key, userId } = await t.newUser();
    const second = (await t.as(key).post('/v1/rules', { name: 'Groceries', conditions: [{ field: 'name', op: 'contains', value: 'market' }], actions: [{ type: 'setCategory', categoryId: groceries(userId) }], order: 5 }).expect(201)).body;
    const first = (
      await t
        .as(key)
        .post('/v1/rules', { name: 'Coffee', conditions: [{ field: 'merchantName', op: 'equals', value: 'Starbucks' }, { field: 'amount', op: 'between', value: [-20, 0] }], match: 'any', actions: [{ type: 'setCategory', categoryId: coffee(userId) }], order: 1 })
        .expect(201)
    ).body;
    expect(first).toEqual({
      id: expect.any(String),
      name: 'Coffee',
      conditions: [
        { field: 'merchantName', op: 'equals', value: 'Starbucks' },
        { field: 'amount', op: 'between', value: [-20, 0] },
      ],
      match: 'any',
      actions: [{ type: 'setCategory', categoryId: coffee(userId) }],
      order: 1,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(second.match).toBe('all');
    const last = (await t.as(key).post('/v1/rules', { name: 'Notes', conditions: [{ field: 'amount', op: 'gt', value: 1000 }], actions: [{ type: 'setNotes', notes: 'big' }] }).expect(201)).body;
    expect(last.order).toBe(6);
    expect((await t.as(key).get('/v1/rules').expect(200)).body.rules.map((rule: { name: string }) => rule.name)).toEqual(['Coffee', 'Groceries', 'Notes']);

    const changed = (await t.as(key).patch(`/v1/rules/${second.id}`, { name: 'Markets', order: 0 }).expect(200)).body;
    expect(changed).toMatchObject({ name: 'Markets', order: 0, conditions: second.conditions });
    expect((await t.as(key).get('/v1/rules').expect(200)).body.rules.map((rule: { name: string }) => rule.name)).toEqual(['Markets', 'Coffee', 'Notes']);

    const other = await t.newUser();
    await t.as(other.key).patch(`/v1/rules/${second.id}`, { name: 'Mine' }).expect(404);
    await t.as(other.key).delete(`/v1/rules/${second.id}`).expect(404);
    await t.as(other.key).post(`/v1/rules/${second.id}/apply`).expect(404);
    expect((await t.as(other.key).get('/v1/rules').expect(200)).body.rules).toEqual([]);

    await t.as(key).delete(`/v1/rules/${second.id}`).expect(204);
    await t.as(key).delete(`/v1/rules/${second.id}`).expect(404);
    expect((await t.as(key).get('/v1/rules').expect(200)).body.rules.map((rule: { name: string }) => rule.name)).toEqual(['Coffee', 'Notes']);
  });

  it('refuses what breaks the bounds or names what is not yours, at its path', async () => {
    const { key, userId } = await t.newUser();
    const other = await t.newUserWithAccount();
    const otherTag = (await t.as(other.key).post('/v1/tags', { name: 'Theirs', color: 'red' }).expect(201)).body.id;
    const condition = { field: 'name', op: 'contains', value: 'x' };
    const action = { type: 'setNotes', notes: 'y' };
    const refused = async (body: Record<string, unknown>) => (await t.as(key).post('/v1/rules', { name: 'R', conditions: [condition], actions: [action], ...body }).expect(422)).body.error.issues.map((issue: { path: unknown[] }) => issue.path);

    expect(await refused({ name: 'x'.repeat(101) })).toEqual([['name']]);
    expect(await refused({ conditions: Array(21).fill(condition) })).toEqual([['conditions']]);
    expect(await refused({ actions: Array(11).fill(action) })).toEqual([['actions']]);
    expect(await refused({ conditions: [condition, { field: 'name', op: 'contains', value: 'x'.repeat(201) }] })).toEqual([['conditions', 1, 'value']]);
    expect(await refused({ conditions: [{ field: 'name', op: 'gt', value: 'x' }] })).toEqual([['conditions', 0, 'op']]);
    expect(await refused({ conditions: [{ field: 'amount', op: 'between', value: [5, 1] }] })).toEqual([['conditions', 0, 'value']]);
    expect(await refused({ conditions: [{ field: 'amount', op: 'contains', value: 5 }] })).toEqual([['conditions', 0, 'op']]);
    expect(await refused({ conditions: [{ field: 'nickname', op: 'equals', value: 'x' }] })).toEqual([['conditions', 0, 'field']]);
    expect(await refused({ actions: [{ type: 'setCategory' }] })).toEqual([['actions', 0, 'categoryId']]);
    expect(await refused({ actions: [{ type: 'setNotes', notes: 'z'.repeat(201) }] })).toEqual([['actions', 0, 'notes']]);
    expect(await refused({ conditions: [{ field: 'accountId', op: 'equals', value: other.accountId }] })).toEqual([['conditions', 0, 'value']]);
    expect(await refused({ conditions: [{ field: 'categoryId', op: 'equals', value: MISSING }] })).toEqual([['conditions', 0, 'value']]);
    expect(await refused({ actions: [action, { type: 'setCategory', categoryId: MISSING }] })).toEqual([['actions', 1, 'categoryId']]);
    expect(await refused({ actions: [{ type: 'addTags', tagIds: [otherTag] }] })).toEqual([['actions', 0, 'tagIds', 0]]);

    const rule = (await t.as(key).post('/v1/rules', { name: 'R', conditions: [condition], actions: [{ type: 'setCategory', categoryId: coffee(userId) }] }).expect(201)).body;
    const patched = await t.as(key).patch(`/v1/rules/${rule.id}`, { actions: [{ type: 'addTags', tagIds: [otherTag] }] }).expect(422);
    expect(patched.body.error.issues.map((issue: { path: unknown[] }) => issue.path)).toEqual([['actions', 0, 'tagIds', 0]]);
    await t.as(key).get(`/v1/rules/applications/${MISSING}`).expect(404);
  });

  it('categorises a new manual transaction (actor system, the rule in its activity), leaving what the user set', async () => {
    const { key, userId, accountId } = await t.newUserWithAccount();
    const tag = (await t.as(key).post('/v1/tags', { name: 'Caffeine', color: 'blue' }).expect(201)).body.id;
    const rule = (
      await t
        .as(key)
        .post('/v1/rules', { name: 'Coffee', conditions: [{ field: 'name', op: 'startsWith', value: 'STARBUCKS' }], actions: [{ type: 'setCategory', categoryId: coffee(userId) }, { type: 'addTags', tagIds: [tag] }] })
        .expect(201)
    ).body;
    const matching = (await t.as(key).post('/v1/transactions', { accountId, amount: -4.5, date: '2026-11-20', name: 'Starbucks #12' }).expect(201)).body;
    const mine = (await t.as(key).post('/v1/transactions', { accountId, amount: -3, date: '2026-11-20', name: 'Starbucks #13', categoryId: groceries(userId) }).expect(201)).body;
    await t.as(key).patch(`/v1/transactions/${mine.id}`, { categoryId: groceries(userId) }).expect(200);
    const other = (await t.as(key).post('/v1/transactions', { accountId, amount: -30, date: '2026-11-20', name: 'Corner shop' }).expect(201)).body;
    await t.settle();

    const categorised = (await t.as(key).get(`/v1/transactions/${matching.id}`).expect(200)).body;
    expect(categorised).toMatchObject({ category: { id: coffee(userId) }, tagIds: [tag] });
    expect(categorised.lockedFields).toEqual([]);
    const kept = (await t.as(key).get(`/v1/transactions/${mine.id}`).expect(200)).body;
    expect(kept).toMatchObject({ category: { id: groceries(userId) }, tagIds: [tag] });
    expect((await t.as(key).get(`/v1/transactions/${other.id}`).expect(200)).body.category).toBeNull();

    const activity = (await t.as(key).get(`/v1/transactions/${matching.id}/activity`).expect(200)).body.events as ActivityEntry[];
    expect(activity.filter((entry) => entry.kind === 'edited').map((entry) => [entry.field, entry.actor, entry.ruleId, entry.newValue])).toEqual([
      ['category', 'system', rule.id, coffee(userId)],
      ['tags', 'system', rule.id, [tag]],
    ]);
    expect(activity.filter((entry) => entry.kind === 'created').every((entry) => entry.ruleId === null && entry.actor === 'user')).toBe(true);
  });

  it('applies a rule to existing transactions as a job: matched and changed, and nothing changed the second time', async () => {
    const { key, accountId } = await t.newUserWithAccount();
    const ids: string[] = [];
    for (const [name, amount] of [['Rent', -1200], ['Gym', -40], ['Rent deposit', -500], ['Salary', 3000]] as const) {
      ids.push((await t.as(key).post('/v1/transactions', { accountId, amount, date: '2026-11-01', name }).expect(201)).body.id);
    }
    await t.as(key).patch(`/v1/transactions/${ids[2]}`, { merchantName: 'My landlord' }).expect(200);
    const rule = (await t.as(key).post('/v1/rules', { name: 'Big outgoings', conditions: [{ field: 'amount', op: 'lt', value: -100 }], actions: [{ type: 'setMerchantName', merchantName: 'Landlord' }] }).expect(201)).body;
    await t.settle();

    const application = (await t.as(key).post(`/v1/rules/${rule.id}/apply`).expect(202)).body;
    expect(application).toMatchObject({ id: expect.any(String), ruleId: rule.id, status: 'queued', matched: 0, changed: 0 });
    await t.settle();
    expect((await t.as(key).get(`/v1/rules/applications/${application.id}`).expect(200)).body).toMatchObject({ status: 'completed', matched: 2, changed: 1 });
    expect((await t.as(key).get(`/v1/transactions/${ids[0]}`).expect(200)).body.merchantName).toBe('Landlord');
    expect((await t.as(key).get(`/v1/transactions/${ids[2]}`).expect(200)).body.merchantName).toBe('My landlord');
    expect((await t.as(key).get(`/v1/transactions/${ids[1]}`).expect(200)).body.merchantName).toBeNull();

    const again = (await t.as(key).post(`/v1/rules/${rule.id}/apply`).expect(202)).body;
    await t.settle();
    expect((await t.as(key).get(`/v1/rules/applications/${again.id}`).expect(200)).body).toMatchObject({ status: 'completed', matched: 2, changed: 0 });
    const other = await t.newUser();
    await t.as(other.key).get(`/v1/rules/applications/${again.id}`).expect(404);
    const stream = await t.runtime.eventStore.readStream(`transaction-${ids[0]}`);
    expect(stream.filter((event) => event.metadata.ruleId === rule.id)).toHaveLength(1);
  });

  it("categorises a bank sync's transactions, and leaves a category the user set alone", async () => {
    const { key, userId } = await t.newUser();
    // A category of the user's own, so no transaction has it from the provider.
    const { groups } = (await t.as(key).get('/v1/categories').expect(200)).body as { groups: Array<{ id: string }> };
    const household = (await t.as(key).post('/v1/categories', { groupId: groups[0].id, iconKey: 'home', name: 'Household' }).expect(201)).body.id as string;
    const rule = (await t.as(key).post('/v1/rules', { name: 'Everything', conditions: [{ field: 'amount', op: 'gt', value: -1_000_000_000 }], actions: [{ type: 'setCategory', categoryId: household }] }).expect(201)).body;
    const { publicToken } = (await t.as(key).post('/v1/sandbox/public-token', { institutionId: 'ins_100003' }).expect(200)).body;
    await t.as(key).post('/v1/link/items', { publicToken }).expect(201);
    await t.settle();

    const listed = (await t.as(key).get('/v1/transactions?limit=100').expect(200)).body.transactions as Array<{ id: string; source: string; category: { id: string } | null }>;
    expect(listed.length).toBeGreaterThan(0);
    expect(listed.every((transaction) => transaction.source === 'bank_link' && transaction.category?.id === household)).toBe(true);
    const [first] = listed;
    const activity = (await t.as(key).get(`/v1/transactions/${first.id}/activity`).expect(200)).body.events as ActivityEntry[];
    expect(activity.filter((entry) => entry.ruleId !== null).map((entry) => [entry.field, entry.actor, entry.ruleId])).toEqual([['category', 'system', rule.id]]);

    // The user's own category is locked: applying the rule again leaves it as they set it.
    await t.as(key).patch(`/v1/transactions/${first.id}`, { categoryId: coffee(userId) }).expect(200);
    const application = (await t.as(key).post(`/v1/rules/${rule.id}/apply`).expect(202)).body;
    await t.settle();
    expect((await t.as(key).get(`/v1/rules/applications/${application.id}`).expect(200)).body).toMatchObject({ status: 'completed', changed: 0 });
    expect((await t.as(key).get(`/v1/transactions/${first.id}`).expect(200)).body.category.id).toBe(coffee(userId));
  }, 180_000);
});

describe('a rule application stopped part-way', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  }, 180_000);
  afterAll(async () => {
    await t.close();
  }, 180_000);

  it('finishes when run again, changing each transaction exactly once', async () => {
    const { key, userId, accountId } = await t.newUserWithAccount();
    const ids: string[] = [];
    for (let n = 0; n < 6; n += 1) ids.push((await t.as(key).post('/v1/transactions', { accountId, amount: -10 - n, date: '2026-11-02', name: `Bakery ${n}` }).expect(201)).body.id);
    const rule = (await t.as(key).post('/v1/rules', { name: 'Bakery', conditions: [{ field: 'name', op: 'startsWith', value: 'bakery' }], actions: [{ type: 'setNotes', notes: 'bread' }] }).expect(201)).body;
    await t.settle();
    // The application's row without its job, so that only this test runs it.
    const applicationId = randomUUID();
    await t.runtime.database.db
      .insertInto('rule_applications')
      .values({ id: applicationId, user_id: userId, rule_id: rule.id, status: 'queued', after_transaction_id: null, error: null, correlation_id: 'crash-test', created_at: new Date(), completed_at: null })
      .execute();
    let handled = 0;
    const crashing = ruleApplicationJob(t.runtime, {
      afterTransaction: () => {
        handled += 1;
        if (handled === 3) throw new Error('crash');
      },
    });
    await expect(crashing.handle({ userId, applicationId })).rejects.toThrow('crash');
    await ruleApplicationJob(t.runtime).handle({ userId, applicationId });
    await ruleApplicationJob(t.runtime).handle({ userId, applicationId });

    for (const id of ids) {
      const changes = (await t.runtime.eventStore.readStream(`transaction-${id}`)).filter((event) => event.metadata.ruleId === rule.id);
      expect(changes.map((event) => [event.type, event.metadata.actor, event.metadata.requestId])).toEqual([['TransactionEdited', 'system', `rule-application-${applicationId}`]]);
    }
    const application = (await t.as(key).get(`/v1/rules/applications/${applicationId}`).expect(200)).body;
    // The first run's changes are found made when its page is done again: matched, not changed twice.
    expect(application).toMatchObject({ status: 'completed', matched: ids.length, changed: ids.length - 3 });
  }, 180_000);
});
