import { startTestApp, type TestApp } from './support/test-app.js';

let t: TestApp;
let key: string;

beforeAll(async () => {
  t = await startTestApp();
  ({ key } = await t.newUser());
});
afterAll(() => t.close());

const today = () => new Date().toISOString().slice(0, 10);

describe('manual accounts', () => {
  it('creates an account, lists it, shows it, and seeds today\'s balance snapshot', async () => {
    const created = await t.as(key).post('/v1/accounts', { name: 'Visa', type: 'credit_card', subtype: 'credit card', currentBalance: -1200.25, creditLimit: 5000, mask: '4242' }).expect(201);
    // The spec's create sample fields …
    expect(created.body).toMatchObject({ id: expect.any(String), name: 'Visa', type: 'credit_card', subtype: 'credit card', institution: null, mask: '4242', currency: 'USD', balance: -1200.25, creditLimit: 5000 });
    const id = created.body.id;
    const list = await t.as(key).get('/v1/accounts').expect(200);
    expect(list.body.accounts).toEqual([expect.objectContaining({ id, name: 'Visa', source: 'manual', current: -1200.25, creditLimit: 5000, hasLiabilities: true, needsReauth: false })]);
    // … and every field of the list item, so either answer can be used the same way.
    expect(created.body).toEqual({ ...list.body.accounts[0], institution: null, balance: -1200.25 });
    const named = await t.as(key).post('/v1/accounts', { name: 'Isa', type: 'investment', subtype: 'ira', currentBalance: 10.5, institutionName: 'Parkside' }).expect(201);
    expect(named.body).toMatchObject({ institution: 'Parkside', institutionName: 'Parkside', balance: 10.5, current: 10.5, creditLimit: null, hasInvestments: true, source: 'manual' });
    await t.as(key).delete(`/v1/accounts/${named.body.id}`).expect(200);
    const detail = await t.as(key).get(`/v1/accounts/${id}`).expect(200);
    expect(detail.body).toMatchObject({ id, available: 3799.75, current: -1200.25, creditLimit: 5000, userOverrideCreditLimit: null });
    const snapshots = await t.as(key).get(`/v1/balances/snapshots?accountId=${id}`).expect(200);
    expect(snapshots.body.snapshots).toEqual([{ id: expect.any(String), accountId: id, date: today(), currentBalance: -1200.25, availableBalance: 3799.75, creditLimit: 5000 }]);
  });

  it('refuses a subtype outside its type, a credit limit on a bank account, and unknown fields', async () => {
    const wrongSubtype = await t.as(key).post('/v1/accounts', { name: 'X', type: 'bank', subtype: 'mortgage', currentBalance: 1 }).expect(422);
    expect(wrongSubtype.body.error.issues[0]).toMatchObject({ path: ['subtype'], code: 'custom', params: { code: 'INVALID_SUBTYPE' } });
    const limit = await t.as(key).post('/v1/accounts', { name: 'X', type: 'bank', subtype: 'checking', currentBalance: 1, creditLimit: 100 }).expect(422);
    expect(limit.body.error.issues[0]).toMatchObject({ path: ['creditLimit'], code: 'custom', params: { code: 'CREDIT_LIMIT_NOT_ALLOWED' } });
    const unknown = await t.as(key).post('/v1/accounts', { name: 'X', type: 'bank', subtype: 'checking', currentBalance: 1, nmae: 'typo' }).expect(422);
    expect(unknown.body).toEqual({ success: false, error: { name: 'ValidationError', issues: [{ code: 'unrecognized_keys', message: expect.any(String), path: ['nmae'] }] } });
  });

  it('sets the balance by hand (today\'s snapshot: the later one wins) and the user\'s own credit limit', async () => {
    const { body } = await t.as(key).post('/v1/accounts', { name: 'Savings', type: 'bank', subtype: 'savings', currentBalance: 100 }).expect(201);
    const patched = await t.as(key).patch(`/v1/accounts/${body.id}/balance`, { current: 250.1234 }).expect(200);
    expect(patched.body).toMatchObject({ id: body.id, current: 250.1234, available: 250.1234 });
    const snapshots = await t.as(key).get(`/v1/balances/snapshots?accountId=${body.id}`).expect(200);
    expect(snapshots.body.snapshots).toHaveLength(1);
    expect(snapshots.body.snapshots[0]).toMatchObject({ currentBalance: 250.1234, creditLimit: null });
    await t.as(key).patch(`/v1/accounts/${body.id}/balance`, { current: 1.23456 }).expect(422);
    await t.as(key).patch(`/v1/accounts/${body.id}`, { creditLimit: 100 }).expect(422);

    const card = await t.as(key).post('/v1/accounts', { name: 'Card', type: 'credit_card', subtype: 'credit card', currentBalance: -100, creditLimit: 1000 }).expect(201);
    const overridden = await t.as(key).patch(`/v1/accounts/${card.body.id}`, { creditLimit: 2000 }).expect(200);
    expect(overridden.body).toMatchObject({ creditLimit: 1000, userOverrideCreditLimit: 2000, available: 1900 });
    const cleared = await t.as(key).patch(`/v1/accounts/${card.body.id}`, { creditLimit: null }).expect(200);
    expect(cleared.body).toMatchObject({ userOverrideCreditLimit: null, available: 900 });
    await t.as(key).patch(`/v1/accounts/${card.body.id}`, { creditLimit: 0 }).expect(422);
    const unchanged = await t.as(key).patch(`/v1/accounts/${card.body.id}`, {}).expect(200);
    expect(unchanged.body.userOverrideCreditLimit).toBeNull();
  });

  it('deletes idempotently: the account and its transactions leave every list', async () => {
    const { body } = await t.as(key).post('/v1/accounts', { name: 'Old', type: 'bank', subtype: 'checking', currentBalance: 5 }).expect(201);
    const txn = await t.as(key).post('/v1/transactions', { accountId: body.id, amount: -5, date: '2026-11-01', name: 'Fee' }).expect(201);
    expect((await t.as(key).delete(`/v1/accounts/${body.id}`).expect(200)).body).toEqual({ success: true, message: expect.any(String) });
    await t.as(key).delete(`/v1/accounts/${body.id}`).expect(200);
    await t.as(key).get(`/v1/accounts/${body.id}`).expect(404);
    await t.as(key).get(`/v1/transactions/${txn.body.id}`).expect(404);
    await t.as(key).patch(`/v1/transactions/${txn.body.id}`, { name: 'x' }).expect(404);
    const list = await t.as(key).get('/v1/accounts').expect(200);
    expect(list.body.accounts.map((a: { id: string }) => a.id)).not.toContain(body.id);
    const snapshots = await t.as(key).get('/v1/balances/snapshots').expect(200);
    expect(snapshots.body.snapshots.map((s: { accountId: string }) => s.accountId)).not.toContain(body.id);
  });

  it('answers 404 for another user\'s account and for a malformed id', async () => {
    const { body } = await t.as(key).post('/v1/accounts', { name: 'Mine', type: 'loan', subtype: 'auto', currentBalance: -9000 }).expect(201);
    const other = await t.newUser();
    expect((await t.as(other.key).get(`/v1/accounts/${body.id}`).expect(404)).body).toEqual({ code: 'NOT_FOUND', error: 'Account not found' });
    await t.as(other.key).patch(`/v1/accounts/${body.id}/balance`, { current: 1 }).expect(404);
    await t.as(key).get('/v1/accounts/not-a-uuid').expect(404);
    await t.as(other.key).delete(`/v1/accounts/${body.id}`).expect(200);
    await t.as(key).get(`/v1/accounts/${body.id}`).expect(200);
  });

  it('takes the nightly snapshot once a day for every open account but brokerage-linked ones, manual investments included', async () => {
    const { body } = await t.as(key).post('/v1/accounts', { name: 'Brokerage', type: 'investment', subtype: 'brokerage', currentBalance: 10 }).expect(201);
    const job = (await import('../src/modules/accounts/nightly-balance-snapshots.job.js')).nightlyBalanceSnapshotsJob(t.runtime);
    await job.handle({});
    await job.handle({});
    const snapshots = await t.as(key).get('/v1/balances/snapshots').expect(200);
    const perAccountToday = new Map<string, number>();
    for (const snapshot of snapshots.body.snapshots) if (snapshot.date === today()) perAccountToday.set(snapshot.accountId, (perAccountToday.get(snapshot.accountId) ?? 0) + 1);
    expect([...perAccountToday.values()].every((count) => count === 1)).toBe(true);
    expect(perAccountToday.get(body.id)).toBe(1);
  });
});
