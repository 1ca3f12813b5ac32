import request from 'supertest';
import { startTestApp, type TestApp } from './support/test-app.js';

let t: TestApp;
let key: string;

beforeAll(async () => {
  t = await startTestApp();
  ({ key } = await t.newUser());
});
afterAll(() => t.close());

describe('HTTP conventions', () => {
  it('gives every response an X-Request-Id, echoing a client\'s own', async () => {
    const own = await request(t.server).get('/v1/accounts').set('Authorization', `Bearer ${key}`).set('X-Request-Id', 'client-chosen-42').expect(200);
    expect(own.headers['x-request-id']).toBe('client-chosen-42');
    const generated = await request(t.server).get('/v1/accounts').expect(401);
    expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const unsafe = await request(t.server).get('/health').set('X-Request-Id', 'bad id with spaces').expect(200);
    expect(unsafe.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers malformed JSON with a flat 400 that leaks no parser internals', async () => {
    const response = await request(t.server).post('/v1/accounts').set('Authorization', `Bearer ${key}`).set('Content-Type', 'application/json').send('{"name": ').expect(400);
    expect(response.body).toEqual({ code: 'BAD_REQUEST', error: 'The request body is not valid JSON.' });
  });

  it('answers a body that is not an object, and one that is too large, with their documented shapes', async () => {
    const array = await t.as(key).post('/v1/accounts', [1, 2]).expect(422);
    expect(array.body.error.issues).toEqual([{ code: 'invalid_type', message: expect.any(String), path: [] }]);
    const huge = await request(t.server).post('/v1/transactions').set('Authorization', `Bearer ${key}`).set('Content-Type', 'application/json').send(JSON.stringify({ notes: 'x'.repeat(1_100_000) })).expect(413);
    expect(huge.body.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('answers unknown routes with the nested 404 and JSON content type', async () => {
    const response = await request(t.server).get('/v1/no-such-thing').set('Authorization', `Bearer ${key}`).expect(404);
    expect(response.body).toEqual({ error: { code: 'NOT_FOUND', message: 'No route for GET /v1/no-such-thing' } });
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
  });

  it('refuses missing, malformed and unknown API keys alike', async () => {
    for (const header of [undefined, 'Bearer', 'Basic abc', 'Bearer pf_live_short', `Bearer pf_live_${'A'.repeat(40)}`]) {
      const test = request(t.server).get('/v1/transactions');
      const response = await (header ? test.set('Authorization', header) : test).expect(401);
      expect(response.body).toEqual({ error: { code: 'UNAUTHORIZED', message: 'Invalid or expired token' } });
    }
  });

  it('lets a read-only key read but not write (403)', async () => {
    const reader = await t.newUser(['read']);
    await t.as(reader.key).get('/v1/accounts').expect(200);
    const refused = await t.as(reader.key).post('/v1/accounts', { name: 'x', type: 'bank', subtype: 'checking', currentBalance: 1 }).expect(403);
    expect(refused.body).toEqual({ error: { code: 'FORBIDDEN', message: expect.stringContaining('write') } });
  });

  it('reports health only when its dependencies answer', async () => {
    const response = await request(t.server).get('/health').expect(200);
    const ok = { status: 'ok', parked: 0 };
    expect(response.body).toEqual({
      status: 'ok',
      checks: { database: 'up', eventStore: 'up', redis: 'not configured', projectionDaemon: 'up' },
      projections: {
        ...{ accounts: ok, transactions: ok, 'transaction-activity': ok, 'balance-snapshots': ok, categories: ok, tags: ok, 'link-items': ok, brokerage: ok, 'user-settings': ok, spending: ok, recurring: ok },
        // Reactions (decision 0038).
        ...{ 'recurring-refresh-requests': ok, 'tag-deletion-requests': ok, 'bank-link-sync-requests': ok, 'brokerage-sync-requests': ok, 'webhook-deliveries': ok, 'rules-on-new-transactions': ok, 'transfer-pairing': ok },
      },
    });
  });
});
