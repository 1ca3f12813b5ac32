import request from 'supertest';
import { openSession } from '../src/modules/identity/session.store.js';
import { startTestApp, type TestApp } from './support/test-app.js';

/** 10:00:45 UTC: 15 seconds left in the minute's window. */
const clock = (() => {
  let at = Date.parse('2026-11-20T10:00:45.000Z');
  return { now: () => new Date(at), advance: (ms: number) => (at += ms), set: (iso: string) => (at = Date.parse(iso)) };
})();

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({
    clock,
    env: {
      RATE_LIMIT_PER_MINUTE: '5',
      PUBLIC_URL: 'http://ledgerline.test',
      SIGN_IN_RATE_LIMIT_PER_MINUTE: '3',
      // Beginning a sign-in only builds the provider's URL: the preset needs no server to answer.
      OAUTH_GOOGLE_CLIENT_ID: 'rate-limit-test',
      OAUTH_GOOGLE_CLIENT_SECRET: 'rate-limit-secret',
      ALLOWED_CALLBACK_ORIGINS: 'https://app.example.com',
    },
  });
});
afterAll(() => t.close());

describe('rate limits (in memory, one instance)', () => {
  it("answer 429 RATE_LIMITED with Retry-After past a user's limit, counting all of the user's credentials, and reset with the window", async () => {
    const { userId, key } = await t.newUser(['read', 'write', 'keys']);
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

  it('count the sign-in start and callback per client address: 429 with Retry-After past SIGN_IN_RATE_LIMIT_PER_MINUTE', async () => {
    clock.set('2026-11-20T10:05:20.000Z');
    const documented = (method: string, path: string) => (response: request.Response) => {
      expect(t.openApi.check(method, path, response.status, response.headers['content-type'], response.body)).toEqual([]);
    };
    const begin = () => request(t.server).post('/api/auth/sign-in/social').send({ provider: 'google', callbackURL: 'https://app.example.com/in' }).expect(documented('POST', '/api/auth/sign-in/social'));
    const callback = () => request(t.server).get('/api/auth/callback/google?code=c&state=s').expect(documented('GET', '/api/auth/callback/google'));
    await begin().expect(200);
    await callback().expect(400);
    await begin().expect(200);
    const limited = await begin().expect(429);
    expect(limited.body).toEqual({ error: { code: 'RATE_LIMITED', message: 'Too many requests: try again in 40 s.' } });
    expect(limited.headers['retry-after']).toBe('40');
    expect(limited.headers['set-cookie']).toBeUndefined();
    expect((await callback().expect(429)).headers['retry-after']).toBe('40');
    // Authenticated requests count against their user, not against the address.
    const { key } = await t.newUser();
    await t.as(key).get('/v1/accounts').expect(200);

    clock.set('2026-11-20T10:06:00.000Z');
    await begin().expect(200);
  });

  it('are off when RATE_LIMIT_PER_MINUTE is 0', async () => {
    const unlimited = await startTestApp({ clock, env: { RATE_LIMIT_PER_MINUTE: '0' } });
    try {
      const { key } = await unlimited.newUser();
      for (let i = 0; i < 12; i += 1) await unlimited.as(key).get('/v1/accounts').expect(200);
    } finally {
      await unlimited.close();
    }
  });
});
