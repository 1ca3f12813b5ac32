import { startTestApp, type TestApp } from './support/test-app.js';

/**
 * api-decisions, "Safe retries and concurrency": Idempotency-Key on every write under /v1, ETag and
 * If-Match on transactions and accounts.
 */
let t: TestApp;
let key: string;
let userId: string;
let accountId: string;

beforeAll(async () => {
  t = await startTestApp();
  ({ key, userId, accountId } = await t.newUserWithAccount());
});
afterAll(() => t.close());

const coffee = () => ({ accountId, amount: -4.5, date: '2026-11-20', name: 'Coffee' });
const countNamed = async (name: string) => ((await t.as(key).get('/v1/transactions?limit=500').expect(200)).body.transactions as Array<{ name: string }>).filter((row) => row.name === name).length;
const eventsOf = async (streamId: string) => (await t.runtime.database.pool.query<{ type: string; metadata: { idempotencyKey?: string } }>('SELECT type, metadata FROM events WHERE stream_id = $1 ORDER BY stream_revision', [streamId])).rows;

describe('Idempotency-Key', () => {
  it('answers a retried create with the first answer, marked replayed, and makes one transaction; the key is in its events', async () => {
    const body = { ...coffee(), name: 'Retried coffee' };
    const first = await t.as(key).post('/v1/transactions', body).set('Idempotency-Key', 'retry-create-1').expect(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await t.as(key).post('/v1/transactions', body).set('Idempotency-Key', 'retry-create-1').expect(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.text).toBe(first.text);
    expect(again.headers.etag).toBe(first.headers.etag);
    expect(await countNamed('Retried coffee')).toBe(1);
    expect((await eventsOf(`transaction-${first.body.id}`)).map((event) => event.metadata.idempotencyKey)).toEqual(['retry-create-1']);
  });

  it('refuses the same key with another body, path or method: 422 IDEMPOTENCY_KEY_REUSED, nothing written', async () => {
    await t.as(key).post('/v1/transactions', { ...coffee(), name: 'Reused once' }).set('Idempotency-Key', 'reuse-1').expect(201);
    const other = await t.as(key).post('/v1/transactions', { ...coffee(), name: 'Reused twice' }).set('Idempotency-Key', 'reuse-1').expect(422);
    expect(other.body).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' });
    await t.as(key).post('/v1/tags', { name: 'reuse tag', color: 'red' }).set('Idempotency-Key', 'reuse-1').expect(422);
    expect(await countNamed('Reused twice')).toBe(0);
  });

  it('lets exactly one of concurrent duplicates write; the others are told it is in progress or get its answer', async () => {
    const body = { ...coffee(), name: 'Concurrent coffee' };
    const answers = await Promise.all(Array.from({ length: 8 }, () => t.as(key).post('/v1/transactions', body).set('Idempotency-Key', 'concurrent-1')));
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.every((status) => status === 201 || status === 409)).toBe(true);
    expect(answers.filter((answer) => answer.status === 201 && answer.headers['idempotent-replayed'] === undefined)).toHaveLength(1);
    for (const answer of answers.filter((each) => each.status === 409)) expect(answer.body).toMatchObject({ code: 'IDEMPOTENCY_KEY_IN_PROGRESS' });
    expect(await countNamed('Concurrent coffee')).toBe(1);
  });

  it('replays a PATCH, a DELETE and a refused request alike', async () => {
    const id = (await t.as(key).post('/v1/transactions', { ...coffee(), name: 'Patched twice' }).expect(201)).body.id as string;
    const patched = await t.as(key).patch(`/v1/transactions/${id}`, { notes: 'once' }).set('Idempotency-Key', 'patch-1').expect(200);
    await t.as(key).patch(`/v1/transactions/${id}`, { notes: 'meanwhile' }).expect(200);
    const replayed = await t.as(key).patch(`/v1/transactions/${id}`, { notes: 'once' }).set('Idempotency-Key', 'patch-1').expect(200);
    expect(replayed.text).toBe(patched.text);
    expect((await t.as(key).get(`/v1/transactions/${id}`).expect(200)).body.notes).toBe('meanwhile');
    const refused = await t.as(key).patch(`/v1/transactions/${id}`, { amount: 'lots' }).set('Idempotency-Key', 'patch-bad').expect(422);
    expect((await t.as(key).patch(`/v1/transactions/${id}`, { amount: 'lots' }).set('Idempotency-Key', 'patch-bad').expect(422)).text).toBe(refused.text);
    await t.as(key).delete(`/v1/transactions/${id}`).set('Idempotency-Key', 'delete-1').expect(200);
    const deletedAgain = await t.as(key).delete(`/v1/transactions/${id}`).set('Idempotency-Key', 'delete-1').expect(200);
    expect(deletedAgain.headers['idempotent-replayed']).toBe('true');
    expect(deletedAgain.body.message).toBe('Transaction deleted');
  });

  it("keeps keys per user: another user's request with the same key is their own", async () => {
    const other = await t.newUserWithAccount();
    await t.as(key).post('/v1/tags', { name: 'mine', color: 'red' }).set('Idempotency-Key', 'per-user-1').expect(201);
    const theirs = await t.as(other.key).post('/v1/tags', { name: 'theirs', color: 'blue' }).set('Idempotency-Key', 'per-user-1').expect(201);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    expect(theirs.body.name).toBe('theirs');
  });

  it('refuses a key that is not 1 to 255 printable ASCII characters', async () => {
    for (const bad of ['x'.repeat(256), 'tab\there']) {
      const refused = await t.as(key).post('/v1/tags', { name: `bad key ${bad.length}`, color: 'red' }).set('Idempotency-Key', bad).expect(422);
      expect(refused.body.error.issues[0].path).toEqual(['Idempotency-Key']);
    }
  });

  it('takes a key used again after its 24 hours as a new request: another body makes another transaction', async () => {
    const first = await t.as(key).post('/v1/transactions', { ...coffee(), name: 'Expired key, first' }).set('Idempotency-Key', 'expired-1').expect(201);
    await t.runtime.database.pool.query("UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE user_id = $1 AND key = 'expired-1'", [userId]);
    const second = await t.as(key).post('/v1/transactions', { ...coffee(), name: 'Expired key, second' }).set('Idempotency-Key', 'expired-1').expect(201);
    expect(second.headers['idempotent-replayed']).toBeUndefined();
    expect(second.body.id).not.toBe(first.body.id);
    expect(second.body.name).toBe('Expired key, second');
  });

  it('runs a create again whose first run died before its answer was kept, and answers what that run made', async () => {
    const body = { ...coffee(), name: 'Crashed coffee' };
    const first = await t.as(key).post('/v1/transactions', body).set('Idempotency-Key', 'crash-1').expect(201);
    // As if the process died between the append and keeping the answer, and the claim then ran out.
    await t.runtime.database.pool.query("UPDATE idempotency_keys SET status = NULL, body = NULL, headers = NULL, locked_until = now() - interval '1 second' WHERE user_id = $1 AND key = 'crash-1'", [userId]);
    const again = await t.as(key).post('/v1/transactions', body).set('Idempotency-Key', 'crash-1').expect(201);
    expect(again.body.id).toBe(first.body.id);
    expect(await countNamed('Crashed coffee')).toBe(1);
    // A claim still held: the first is taken to be running.
    await t.runtime.database.pool.query("UPDATE idempotency_keys SET status = NULL, locked_until = now() + interval '1 minute' WHERE user_id = $1 AND key = 'crash-1'", [userId]);
    expect((await t.as(key).post('/v1/transactions', body).set('Idempotency-Key', 'crash-1').expect(409)).body.code).toBe('IDEMPOTENCY_KEY_IN_PROGRESS');
  });
});

describe('ETag and If-Match', () => {
  it('tags a transaction with its stream revision and refuses a stale If-Match with 412, appending nothing', async () => {
    const created = await t.as(key).post('/v1/transactions', { ...coffee(), name: 'Tagged coffee' }).expect(201);
    expect(created.headers.etag).toBe('"0"');
    const id = created.body.id as string;
    expect((await t.as(key).get(`/v1/transactions/${id}`).expect(200)).headers.etag).toBe('"0"');
    const edited = await t.as(key).patch(`/v1/transactions/${id}`, { notes: 'first' }).set('If-Match', '"0"').expect(200);
    expect(edited.headers.etag).toBe('"1"');
    const stale = await t.as(key).patch(`/v1/transactions/${id}`, { notes: 'second' }).set('If-Match', '"0"').expect(412);
    expect(stale.body).toMatchObject({ code: 'PRECONDITION_FAILED' });
    await t.as(key).put(`/v1/transactions/${id}/tags`, { tagIds: [] }).set('If-Match', '"0"').expect(412);
    await t.as(key).delete(`/v1/transactions/${id}`).set('If-Match', '"0"').expect(412);
    expect(await eventsOf(`transaction-${id}`)).toHaveLength(2);
    expect((await t.as(key).get(`/v1/transactions/${id}`).expect(200)).body.notes).toBe('first');
    await t.as(key).patch(`/v1/transactions/${id}`, { notes: 'any' }).set('If-Match', '*').expect(200);
    await t.as(key).patch(`/v1/transactions/${id}`, { notes: 'weak' }).set('If-Match', 'W/"9", W/"2"').expect(200);
    await t.as(key).delete(`/v1/transactions/${id}`).set('If-Match', '"3"').expect(200);
    await t.as(key).delete(`/v1/transactions/${id}`).set('If-Match', '"3"').expect(412);
  });

  it('tags an account and refuses a stale If-Match on its writes', async () => {
    const created = await t.as(key).post('/v1/accounts', { name: 'Tagged card', type: 'credit_card', subtype: 'credit card', currentBalance: -20, creditLimit: 500 }).expect(201);
    const id = created.body.id as string;
    expect(created.headers.etag).toBe('"0"');
    const read = await t.as(key).get(`/v1/accounts/${id}`).expect(200);
    expect(read.headers.etag).toBe('"0"');
    const balanced = await t.as(key).patch(`/v1/accounts/${id}/balance`, { current: -30 }).set('If-Match', '"0"').expect(200);
    // A balance set by hand also snapshots today: the stream moved by more than one.
    expect(balanced.headers.etag).toMatch(/^"[1-9]\d*"$/);
    await t.as(key).patch(`/v1/accounts/${id}`, { creditLimit: 900 }).set('If-Match', '"0"').expect(412);
    await t.as(key).delete(`/v1/accounts/${id}`).set('If-Match', '"0"').expect(412);
    expect((await t.as(key).get(`/v1/accounts/${id}`).expect(200)).body.current).toBe(-30);
    await t.as(key).patch(`/v1/accounts/${id}`, { creditLimit: 900 }).set('If-Match', balanced.headers.etag as string).expect(200);
  });
});
