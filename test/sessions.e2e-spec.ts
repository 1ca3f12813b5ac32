import request from 'supertest';
import type { Clock } from '../src/core/clock.js';
import { openSession } from '../src/modules/identity/session.store.js';
import { startTestApp, type TestApp } from './support/test-app.js';

const PUBLIC_URL = 'https://ledgerline.example.com';
const APP = 'https://app.example.com';
const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;

/** The service's clock, moved by the test: sessions age without anyone waiting. */
const clock = (() => {
  let at = Date.parse('2026-11-01T09:00:00.000Z');
  return { now: () => new Date(at), set: (instant: number) => (at = instant), at: () => at } satisfies Clock & Record<string, unknown>;
})();

let t: TestApp;

beforeAll(async () => {
  // NODE_ENV says development, but PUBLIC_URL is https: the cookie is Secure all the same.
  t = await startTestApp({ clock, env: { NODE_ENV: 'development', PUBLIC_URL, ALLOWED_CALLBACK_ORIGINS: APP } });
});
afterAll(() => t.close());

/** A session opened now for a new user, as the sign-in callback opens one. */
async function newSession(): Promise<{ cookie: string; userId: string; key: string }> {
  const { userId, key } = await t.newUser();
  const { token } = await openSession(t.runtime.database.db, userId, clock.now());
  return { cookie: `pf_session=${token}`, userId, key };
}

const setCookieOf = (response: request.Response) => ([] as string[]).concat(response.headers['set-cookie'] ?? []);

describe('sessions', () => {
  it('last 30 days without use, then answer 401', async () => {
    const start = clock.at();
    const { cookie, userId } = await newSession();
    // A request would refresh the session (and hide the expiry): read its row instead.
    const row = await t.runtime.database.db.selectFrom('sessions').select('expires_at').where('user_id', '=', userId).executeTakeFirstOrThrow();
    expect(row.expires_at.toISOString()).toBe(new Date(start + 30 * DAY).toISOString());
    clock.set(start + 30 * DAY);
    const expired = await t.withSession(cookie).get('/v1/accounts').expect(401);
    expect(expired.body).toEqual({ error: { code: 'UNAUTHORIZED', message: 'Invalid or expired token' } });
    clock.set(start);
  });

  it('are extended to 30 days from now, and the cookie re-set, by a request more than 24 h after the last refresh', async () => {
    const start = clock.at();
    const { cookie } = await newSession();
    clock.set(start + 24 * HOUR);
    const sameDay = await t.withSession(cookie).get('/api/auth/session').expect(200);
    expect(sameDay.body.session.expiresAt).toBe(new Date(start + 30 * DAY).toISOString());
    expect(setCookieOf(sameDay)).toEqual([]);

    clock.set(start + 24 * HOUR + 1000);
    const nextDay = await t.withSession(cookie).get('/v1/accounts').expect(200);
    const [reset] = setCookieOf(nextDay);
    expect(reset).toMatch(new RegExp(`^${cookie}; Max-Age=2592000; Path=/; Expires=[^;]+; HttpOnly; Secure; SameSite=Lax$`));
    const refreshed = await t.withSession(cookie).get('/api/auth/session').expect(200);
    expect(refreshed.body.session.expiresAt).toBe(new Date(start + 24 * HOUR + 1000 + 30 * DAY).toISOString());
    expect(setCookieOf(refreshed)).toEqual([]);

    // Past the original 30 days, alive thanks to the refresh; then expired 30 days after it.
    clock.set(start + 24 * HOUR + 30 * DAY);
    await t.withSession(cookie).get('/v1/accounts').expect(200);
    clock.set(start + 24 * HOUR + 1000 + 30 * DAY + 30 * DAY);
    await t.withSession(cookie).get('/v1/accounts').expect(401);
    clock.set(start);
  });

  it('end 90 days after sign-in however active they are: the sliding refresh stops at the cap', async () => {
    const start = clock.at();
    const { cookie } = await newSession();
    // Used every 20 days: each use slides the expiry on, until the cap is nearer than 30 days.
    for (const day of [20, 40]) {
      clock.set(start + day * DAY);
      const used = await t.withSession(cookie).get('/api/auth/session').expect(200);
      expect(used.body.session.expiresAt).toBe(new Date(start + (day + 30) * DAY).toISOString());
    }
    clock.set(start + 65 * DAY);
    const capped = await t.withSession(cookie).get('/api/auth/session').expect(200);
    expect(capped.body.session.expiresAt).toBe(new Date(start + 90 * DAY).toISOString());
    expect(setCookieOf(capped)[0]).toMatch(new RegExp(`^${cookie}; Max-Age=${25 * 24 * 60 * 60};`));
    clock.set(start + 89 * DAY);
    const lastDay = await t.withSession(cookie).get('/v1/accounts').expect(200);
    expect(setCookieOf(lastDay)).toEqual([]);
    clock.set(start + 90 * DAY);
    await t.withSession(cookie).get('/v1/accounts').expect(401);
    clock.set(start);
  });

  it('follow SESSION_MAX_LIFETIME_DAYS, and drop Secure only for a plain-http localhost PUBLIC_URL', async () => {
    const local = await startTestApp({ clock, env: { NODE_ENV: 'production', PUBLIC_URL: 'http://localhost:3000', SESSION_MAX_LIFETIME_DAYS: '40' } });
    try {
      const start = clock.at();
      const { userId } = await local.newUser();
      const { token } = await openSession(local.runtime.database.db, userId, clock.now());
      clock.set(start + 15 * DAY + 1000);
      const refreshed = await local.withSession(`pf_session=${token}`).get('/api/auth/session').expect(200);
      expect(refreshed.body.session.expiresAt).toBe(new Date(start + 40 * DAY).toISOString());
      expect(setCookieOf(refreshed)[0]).toMatch(new RegExp(`^pf_session=${token}; Max-Age=${25 * 24 * 60 * 60 - 1}; Path=/; Expires=[^;]+; HttpOnly; SameSite=Lax$`));
      clock.set(start + 40 * DAY);
      await local.withSession(`pf_session=${token}`).get('/api/auth/session').expect(401);
      clock.set(start);
    } finally {
      await local.close();
    }
  });

  it('give the signed-in user both scopes', async () => {
    const { cookie } = await newSession();
    await t.withSession(cookie, APP).post('/v1/accounts', { name: 'Cash', type: 'bank', subtype: 'checking', currentBalance: 5 }).expect(201);
    await t.withSession(cookie).get('/v1/accounts').expect(200);
  });

  it('refuse a cookie-authenticated write from another origin, or naming none, with 403', async () => {
    const { cookie, key } = await newSession();
    const body = { name: 'Savings', type: 'bank', subtype: 'savings', currentBalance: 1 };
    const send = (headers: Record<string, string>) => request(t.server).post('/v1/accounts').set({ Cookie: cookie, ...headers }).send(body);
    const crossSite: Array<Record<string, string>> = [{}, { Origin: 'https://evil.example.net' }, { Origin: 'null' }, { Referer: 'https://evil.example.net/page' }, { Origin: 'https://evil.example.net', Referer: `${APP}/` }];
    for (const headers of crossSite) {
      const refused = await send(headers).expect(403);
      expect(refused.body).toEqual({ error: { code: 'FORBIDDEN', message: expect.stringContaining('Cross-site') } });
    }
    await send({ Origin: APP }).expect(201);
    await send({ Origin: PUBLIC_URL }).expect(201);
    await send({ Referer: `${APP}/accounts/new` }).expect(201);
    // Reads need no origin; an API key needs none either (no browser sends it by itself).
    await request(t.server).get('/v1/accounts').set('Cookie', cookie).expect(200);
    await request(t.server).post('/v1/accounts').set('Authorization', `Bearer ${key}`).send(body).expect(201);
    // Signing out is a write too.
    await request(t.server).post('/api/auth/sign-out').set({ Cookie: cookie, Origin: 'https://evil.example.net' }).expect(403);
    await request(t.server).get('/v1/accounts').set('Cookie', cookie).expect(200);
  });

  it('do not rescue a bad bearer key, and the session operation takes only the cookie', async () => {
    const { cookie, key } = await newSession();
    await request(t.server).get('/v1/accounts').set({ Cookie: cookie, Authorization: 'Bearer pf_live_wrong' }).expect(401);
    await request(t.server).get('/api/auth/session').set('Authorization', `Bearer ${key}`).expect(401);
    await request(t.server).get('/v1/accounts').set('Cookie', 'pf_session=not-a-session').expect(401);
    await request(t.server).get('/v1/accounts').set('Cookie', `other=1; pf_session=${'A'.repeat(43)}`).expect(401);
  });

  it('end at sign-out on every request after, and signing out twice is harmless', async () => {
    const { cookie } = await newSession();
    await request(t.server).post('/api/auth/sign-out').set({ Cookie: cookie, Origin: APP }).expect(200);
    await t.withSession(cookie).get('/v1/accounts').expect(401);
    const again = await request(t.server).post('/api/auth/sign-out').set({ Cookie: cookie, Origin: APP }).expect(200);
    expect(again.body.success).toBe(true);
    const none = await request(t.server).post('/api/auth/sign-out').expect(200);
    expect(none.body).toEqual({ success: true, message: 'There was no session to sign out of' });
  });
});
