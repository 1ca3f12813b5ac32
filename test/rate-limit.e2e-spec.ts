import request from 'supertest';
import { openSession } from '../src/modules/identity/session.store.js';
import { startTestApp, type TestApp } from './support/test-app.js';

/** 10:00:45 UTC: 15 seconds left in the minute's window. */
const clock = (() => {
  let at = Date.parse('2026-11-20T10:00:45.000Z');
  return { now: () => new Date(at), advance: (ms: number) => (at += ms) };
})();

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ clock, env: { RATE_LIMIT_PER_MINUTE: '5', PUBLIC_URL: 'http://ledgerline.test' } });
});
afterAll(() => t.close());

describe('rate limits (in memory, one instance)', () => {
  it("answer 429 RATE_LIMITED with Retry-After past a user's limit, counting all of the user's credentials, and reset with the window", async () => {
    const { userId, key } = await t.newUser();
    const secondKey = (await t.as(key).post('/v1/api-keys', { name: 'second' }).expect(201)).body.key;
    const { token } = await openSession(t.runtime.database.db, userId, clock.now());
    await t.as(key).get('/v1/accounts').expect(200);
    await t.as(secondKey).get('/v1/accounts').expect(200);
    await t.withSession(`pf_session=${token}`).get('/v1/accounts').expect(200);
    await t.as(key).get('/v1/api-keys').expect(200);

    const limited = await t.as(secondKey).get('/v1/accounts').expect(429);
    expect(limited.body).toEqual({ error: { code: 'RATE_LIMITED', message: 'Too many requests: try again in 15 s.' } });
    expect(limited.headers['retry-after']).toBe('15');
    await t.withSession(`pf_session=${token}`).get('/api/auth/session').expect(429);

    const other = await t.newUser();
    await t.as(other.key).get('/v1/accounts').expect(200);
    // Unauthenticated routes are not counted against anyone.
    await request(t.server).get('/health').expect(200);
    await request(t.server).get('/v1/openapi.json').expect(200);

    clock.advance(15_000);
    await t.as(key).get('/v1/accounts').expect(200);
  });

  it('are off when RATE_LIMIT_PER_MINUTE is 0', async () => {
    const unlimited = await startTestApp({ clock, env: { RATE_LIMIT_PER_MINUTE: '0' } });
    try {
      const { key } = await unlimited.newUser();
      for (let i = 0; i < 12; i += 1) await unlimited.as(key).get('/v1/api-keys').expect(200);
    } finally {
      await unlimited.close();
    }
  });
});
