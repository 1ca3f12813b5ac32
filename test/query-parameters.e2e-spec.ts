import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { systemCategoryId } from '../src/modules/categories/user-categories.js';
import { SCOPES } from '../src/modules/identity/api-key.js';
import { startTestApp, type TestApp } from './support/test-app.js';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

/** Written by an OAuth provider or a brokerage provider's portal, which add parameters of their own (Google: scope, authuser, prompt). */
const PROVIDER_WRITTEN = new Set(['GET /api/auth/callback/{provider}', 'GET /v1/brokerage/portal/return']);

describe('query parameters', () => {
  it('refuses a parameter an operation does not take (422 unrecognized_keys at its name) on every operation of the document, as bodies refuse unknown fields', async () => {
    const { key } = await t.newUser([...SCOPES]);
    const operations = Object.entries(t.openApi.document.paths).flatMap(([route, item]) => Object.keys(item).map((method) => ({ method, route })));
    expect(operations.length).toBeGreaterThan(40);
    const refused: string[] = [];
    for (const { method, route } of operations) {
      const label = `${method.toUpperCase()} ${route}`;
      if (PROVIDER_WRITTEN.has(label)) continue;
      const url = `${route.replace(/\{(\w+)\}/g, () => randomUUID())}?acountId=${randomUUID()}&limit=1`;
      const response = await request(t.server)[method as 'get'](url).set('Authorization', `Bearer ${key}`);
      const issues = (response.body as { error?: { issues?: unknown[] } }).error?.issues;
      const limitTaken = (t.openApi.document.paths[route]![method]!.parameters ?? []).some((parameter) => parameter.in === 'query' && parameter.name === 'limit');
      const expected = [{ code: 'unrecognized_keys', message: expect.stringContaining('acountId'), path: ['acountId'] }, ...(limitTaken ? [] : [{ code: 'unrecognized_keys', message: expect.any(String), path: ['limit'] }])];
      expect([label, response.status, issues]).toEqual([label, 422, expected]);
      expect(t.openApi.check(method.toUpperCase(), url, response.status, response.headers['content-type'], response.body)).toEqual([]);
      refused.push(label);
    }
    expect(refused.length).toBe(operations.length - PROVIDER_WRITTEN.size);
    // The parameters an operation takes still work, and the provider's callback ignores what a provider adds.
    expect((await t.as(key).get('/v1/transactions?limit=1').expect(200)).body.transactions).toEqual([]);
    const callback = await request(t.server).get('/api/auth/callback/nobody?code=x&state=y&scope=email&authuser=0');
    expect(callback.status).not.toBe(422);
  });

  it('answers 404 to a transactions filter that names an account, category or tag that is not yours (deleted included), not an empty page', async () => {
    const { key, accountId } = await t.newUserWithAccount();
    const other = await t.newUserWithAccount();
    await t.as(key).post('/v1/transactions', { accountId, amount: -3, date: '2026-11-20', name: 'Tea' }).expect(201);
    const gone = (await t.as(key).post('/v1/accounts', { name: 'Closed', type: 'bank', subtype: 'savings', currentBalance: 1 }).expect(201)).body.id as string;
    await t.as(key).delete(`/v1/accounts/${gone}`).expect(200);
    for (const query of [`accountId=${other.accountId}`, `accountId=${accountId}&accountId=${randomUUID()}`, `accountId=${gone}`]) {
      expect([query, (await t.as(key).get(`/v1/transactions?${query}`).expect(404)).body]).toEqual([query, { code: 'NOT_FOUND', error: 'Account not found' }]);
    }
    expect((await t.as(key).get(`/v1/transactions?accountId=${accountId}&accountId=${accountId.toUpperCase()}`).expect(200)).body.transactions).toHaveLength(1);

    const { categories } = (await t.as(key).get('/v1/categories').expect(200)).body as { categories: Array<{ id: string }> };
    const theirs = (await t.as(other.key).get('/v1/categories').expect(200)).body.categories[0].id as string;
    expect((await t.as(key).get(`/v1/transactions?categoryId=${theirs}`).expect(404)).body).toEqual({ code: 'NOT_FOUND', error: 'Category not found' });
    await t.as(key).get(`/v1/transactions?categoryId=${categories[0]!.id}`).expect(200);
    // A new user's system categories are theirs from the start: reference data, nothing to seed.
    const fresh = await t.newUser();
    const ownSystemCategory = systemCategoryId(fresh.userId, 'INCOME_WAGES');
    await t.as(fresh.key).get(`/v1/transactions?categoryId=${ownSystemCategory}`).expect(200);
    await t.as(fresh.key).get(`/v1/transactions?categoryId=${theirs}`).expect(404);

    const tag = (await t.as(key).post('/v1/tags', { name: 'Trip', color: 'blue' }).expect(201)).body.id as string;
    const theirTag = (await t.as(other.key).post('/v1/tags', { name: 'Trip', color: 'blue' }).expect(201)).body.id as string;
    await t.as(key).get(`/v1/transactions?tagId=${tag}`).expect(200);
    expect((await t.as(key).get(`/v1/transactions?tagId=${theirTag}`).expect(404)).body).toEqual({ code: 'NOT_FOUND', error: 'Tag not found' });
    await t.as(key).delete(`/v1/tags/${tag}`).expect(204);
    await t.as(key).get(`/v1/transactions?tagId=${tag}`).expect(404);
  });

  it('answers 404 to a balance-snapshot filter that names an account that is not yours, or deleted', async () => {
    const { key, accountId } = await t.newUserWithAccount();
    const other = await t.newUserWithAccount();
    expect((await t.as(key).get(`/v1/balances/snapshots?accountId=${accountId}`).expect(200)).body.snapshots).toHaveLength(1);
    expect((await t.as(key).get(`/v1/balances/snapshots?accountId=${other.accountId}`).expect(404)).body).toEqual({ code: 'NOT_FOUND', error: 'Account not found' });
    await t.as(key).get(`/v1/balances/snapshots?accountId=${randomUUID()}`).expect(404);
    await t.as(key).delete(`/v1/accounts/${accountId}`).expect(200);
    await t.as(key).get(`/v1/balances/snapshots?accountId=${accountId}`).expect(404);
  });

  it('honours accountType=credit_card on GET /spending/credit and refuses any other type (422), never ignoring it', async () => {
    const { key } = await t.newUser();
    const card = (await t.as(key).post('/v1/accounts', { name: 'Card', type: 'credit_card', subtype: 'credit card', currentBalance: -10, creditLimit: 100 }).expect(201)).body.id as string;
    await t.as(key).post('/v1/transactions', { accountId: card, amount: -10, date: new Date().toISOString().slice(0, 10), name: 'Books' }).expect(201);
    const plain = (await t.as(key).get('/v1/spending/credit').expect(200)).body;
    expect(plain.totalSpending).toBe(10);
    expect((await t.as(key).get('/v1/spending/credit?accountType=credit_card').expect(200)).body).toEqual(plain);
    for (const type of ['bank', 'loan', 'investment', 'savings']) {
      const response = await t.as(key).get(`/v1/spending/credit?accountType=${type}`).expect(422);
      expect([type, response.body.error.issues]).toEqual([type, [{ code: 'invalid_enum_value', message: expect.any(String), path: ['accountType'] }]]);
    }
  });
});
