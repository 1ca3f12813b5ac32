import { Writable } from 'node:stream';
import request from 'supertest';
import { hashSessionToken } from '../src/modules/identity/session.js';
import { closedPort, startOAuthProvider, type TestOAuthProvider } from './support/oauth-provider.js';
import { startTestApp, type TestApp } from './support/test-app.js';

const PUBLIC_URL = 'http://ledgerline.test';
const APP = 'https://app.example.com';
const CALLBACK_URL = `${APP}/signed-in?from=settings`;

let t: TestApp;
let provider: TestOAuthProvider;
let logText = '';
/** Every code, state and session cookie the tests saw: none may reach the log. */
const secretsSeen = new Set<string>();

beforeAll(async () => {
  provider = await startOAuthProvider();
  const down = `http://127.0.0.1:${await closedPort()}`;
  const logTo = new Writable({
    write(chunk, _encoding, done) {
      logText += String(chunk);
      done();
    },
  });
  t = await startTestApp({
    logTo,
    env: {
      PUBLIC_URL,
      ALLOWED_CALLBACK_ORIGINS: `${APP},https://other-app.example.com`,
      ...provider.env('MOCK'),
      // Consent works, but the token endpoint is down.
      ...provider.env('FLAKY', { TOKEN_URL: `${down}/token` }),
    },
  });
});
afterAll(async () => {
  await t.close();
  await provider.stop();
});

/** The documented response, or the test fails. */
function documented(method: string, path: string) {
  return (response: request.Response) => {
    expect(t.openApi.check(method, path, response.status, response.headers['content-type'], response.body)).toEqual([]);
  };
}

async function beginSignIn(name = 'mock', callbackURL = CALLBACK_URL): Promise<URL> {
  const response = await request(t.server).post('/api/auth/sign-in/social').send({ provider: name, callbackURL }).expect(200).expect(documented('POST', '/api/auth/sign-in/social'));
  expect(response.body.redirect).toBe(true);
  const url = new URL(response.body.url);
  secretsSeen.add(url.searchParams.get('state') as string);
  return url;
}

/** The provider's consent screen, approved (or declined), and where it sends the browser. */
async function consent(authorizeUrl: URL): Promise<URL> {
  const back = await provider.authorize(authorizeUrl.toString());
  for (const name of ['code', 'state']) if (back.searchParams.get(name)) secretsSeen.add(back.searchParams.get(name) as string);
  return back;
}

function callback(location: URL | string) {
  const url = typeof location === 'string' ? new URL(location, PUBLIC_URL) : location;
  return request(t.server).get(url.pathname + url.search).expect(documented('GET', url.pathname));
}

function sessionCookieOf(response: request.Response): { cookie: string; attributes: string } {
  const header = ([] as string[]).concat(response.headers['set-cookie'] ?? []).find((line) => line.startsWith('pf_session='));
  if (!header) throw new Error(`No pf_session cookie in ${JSON.stringify(response.headers)}`);
  const [pair, ...attributes] = header.split(';').map((part) => part.trim());
  secretsSeen.add(pair.slice('pf_session='.length));
  return { cookie: pair, attributes: attributes.join('; ') };
}

async function signIn(name = 'mock'): Promise<string> {
  const response = await callback(await consent(await beginSignIn(name))).expect(302);
  expect(response.headers.location).toBe(CALLBACK_URL);
  return sessionCookieOf(response).cookie;
}

describe('OAuth 2.0 sign-in against a real OAuth 2.0 / OIDC server', () => {
  it('signs a browser in, lets the cookie call /v1, and signs it out again', async () => {
    provider.signInAs({ sub: 'ada-1815', email: 'ada@example.com', email_verified: true, name: 'Ada Lovelace' });
    const authorizeUrl = await beginSignIn();
    expect(authorizeUrl.origin + authorizeUrl.pathname).toBe(`${provider.url}/authorize`);
    expect(Object.fromEntries(authorizeUrl.searchParams)).toEqual({
      response_type: 'code',
      client_id: 'ledgerline-test-client',
      redirect_uri: `${PUBLIC_URL}/api/auth/callback/mock`,
      scope: 'openid email profile',
      code_challenge: expect.stringMatching(/^[\w-]{43}$/),
      code_challenge_method: 'S256',
      state: expect.stringMatching(/^[\w-]{43}$/),
    });

    const back = await consent(authorizeUrl);
    expect(back.origin + back.pathname).toBe(`${PUBLIC_URL}/api/auth/callback/mock`);
    const signedIn = await callback(back).expect(302);
    expect(signedIn.headers.location).toBe(CALLBACK_URL);
    const { cookie, attributes } = sessionCookieOf(signedIn);
    expect(cookie).toMatch(/^pf_session=[\w-]{43}$/);
    expect(attributes).toContain('Max-Age=2592000');
    expect(attributes).toContain('Path=/');
    expect(attributes).toContain('HttpOnly');
    expect(attributes).toContain('SameSite=Lax');
    expect(attributes).not.toContain('Secure'); // NODE_ENV is development here; sessions.e2e-spec checks production

    const session = await request(t.server).get('/api/auth/session').set('Cookie', cookie).expect(200).expect(documented('GET', '/api/auth/session'));
    expect(session.body).toEqual({ user: { id: expect.any(String), email: 'ada@example.com', name: 'Ada Lovelace' }, session: { expiresAt: expect.any(String) } });
    const browser = t.withSession(cookie, APP);
    await browser.post('/v1/accounts', { name: 'Checking', type: 'bank', subtype: 'checking', currentBalance: 100 }).expect(201);
    expect((await browser.get('/v1/accounts').expect(200)).body.accounts).toHaveLength(1);

    // The signed-in user issues themselves an API key; it sees the same data.
    const issued = await browser.post('/v1/api-keys', { name: 'spreadsheet' }).expect(201);
    expect((await t.as(issued.body.key).get('/v1/accounts').expect(200)).body.accounts[0].name).toBe('Checking');

    const signedOut = await request(t.server).post('/api/auth/sign-out').set('Cookie', cookie).set('Origin', APP).expect(200).expect(documented('POST', '/api/auth/sign-out'));
    expect(signedOut.body).toEqual({ success: true, message: 'Signed out' });
    expect(([] as string[]).concat(signedOut.headers['set-cookie'])[0]).toMatch(/^pf_session=;.*Expires=Thu, 01 Jan 1970/);
    const after = await request(t.server).get('/v1/accounts').set('Cookie', cookie).expect(401);
    expect(after.body).toEqual({ error: { code: 'UNAUTHORIZED', message: 'Invalid or expired token' } });
    await request(t.server).get('/api/auth/session').set('Cookie', cookie).expect(401).expect(documented('GET', '/api/auth/session'));
  });

  it('finds the same user when a subject signs in again, and another user for another subject', async () => {
    provider.signInAs({ sub: 'grace-1906', email: 'grace@example.com', email_verified: true, name: 'Grace Hopper' });
    const first = await request(t.server).get('/api/auth/session').set('Cookie', await signIn()).expect(200);
    provider.signInAs({ sub: 'grace-1906', email: 'grace@navy.example.com', email_verified: true, name: 'Rear Admiral Hopper' });
    const again = await request(t.server).get('/api/auth/session').set('Cookie', await signIn()).expect(200);
    expect(again.body.user.id).toBe(first.body.user.id);
    provider.signInAs({ sub: 'someone-else' });
    const other = await request(t.server).get('/api/auth/session').set('Cookie', await signIn()).expect(200);
    expect(other.body.user).toEqual({ id: expect.any(String), email: null, name: null });
    expect(other.body.user.id).not.toBe(first.body.user.id);
  });

  it('joins a verified email to the user the operator created, but never an unverified one', async () => {
    const operatorMade = await t.newUser();
    const { email } = await t.runtime.database.db.selectFrom('users').select('email').where('id', '=', operatorMade.userId).executeTakeFirstOrThrow();
    provider.signInAs({ sub: 'claims-only', email: email as string, email_verified: false });
    const unverified = await request(t.server).get('/api/auth/session').set('Cookie', await signIn()).expect(200);
    expect(unverified.body.user).toMatchObject({ email: null });
    expect(unverified.body.user.id).not.toBe(operatorMade.userId);
    provider.signInAs({ sub: 'verified-owner', email: (email as string).toUpperCase(), email_verified: true });
    const verified = await request(t.server).get('/api/auth/session').set('Cookie', await signIn()).expect(200);
    expect(verified.body.user.id).toBe(operatorMade.userId);
  });

  it('keeps no state, PKCE verifier or session id in clear', async () => {
    const authorizeUrl = await beginSignIn();
    const state = authorizeUrl.searchParams.get('state') as string;
    const flows = await t.runtime.database.db.selectFrom('sign_in_flows').selectAll().execute();
    const stored = JSON.stringify(flows.map((row) => ({ ...row, state_hash: row.state_hash.toString('hex'), sealed_verifier: row.sealed_verifier.toString('latin1') })));
    expect(stored).not.toContain(state);
    expect(stored).not.toContain(Buffer.from(state).toString('hex'));
    expect(flows.every((row) => row.sealed_verifier.length === 12 + 16 + 43)).toBe(true);

    const cookie = await signIn();
    const token = cookie.slice('pf_session='.length);
    const sessions = await t.runtime.database.db.selectFrom('sessions').select('id_hash').execute();
    expect(sessions.map((row) => row.id_hash.toString('hex'))).toContain(hashSessionToken(token).toString('hex'));
    expect(JSON.stringify(sessions)).not.toContain(token);
  });

  it('refuses an unknown provider, a callbackURL off the allow-list, and a malformed body', async () => {
    const unknown = await request(t.server).post('/api/auth/sign-in/social').send({ provider: 'myspace', callbackURL: CALLBACK_URL }).expect(400).expect(documented('POST', '/api/auth/sign-in/social'));
    expect(unknown.body).toEqual({ code: 'UNKNOWN_PROVIDER', error: expect.stringContaining('flaky, mock') });
    const unknownCallback = await callback('/api/auth/callback/myspace?code=x&state=y').expect(400);
    expect(unknownCallback.body.code).toBe('UNKNOWN_PROVIDER');
    for (const callbackURL of ['https://evil.example.net/steal', 'https://app.example.com.evil.net/', `${APP}@evil.example.net/`, 'javascript:alert(1)', '/relative', 'http://app.example.com/']) {
      const refused = await request(t.server).post('/api/auth/sign-in/social').send({ provider: 'mock', callbackURL }).expect(400).expect(documented('POST', '/api/auth/sign-in/social'));
      expect(refused.body.code).toBe('CALLBACK_URL_NOT_ALLOWED');
    }
    await request(t.server).post('/api/auth/sign-in/social').send({ provider: 'mock', callbackURL: 'https://other-app.example.com/in' }).expect(200);
    const invalid = await request(t.server).post('/api/auth/sign-in/social').send({ provider: 'mock' }).expect(422).expect(documented('POST', '/api/auth/sign-in/social'));
    expect(invalid.body.error.issues[0].path).toEqual(['callbackURL']);
  });

  it('answers a forged or missing state with 400 INVALID_STATE, and a used one likewise', async () => {
    const back = await consent(await beginSignIn());
    const forged = new URL(back);
    forged.searchParams.set('state', 'x'.repeat(43));
    expect((await callback(forged).expect(400)).body).toEqual({ code: 'INVALID_STATE', error: expect.stringContaining('start again') });
    const missing = new URL(back);
    missing.searchParams.delete('state');
    expect((await callback(missing).expect(400)).body.code).toBe('INVALID_STATE');
    // The genuine state was not consumed by the forgeries; it works once, and only once.
    await callback(back).expect(302);
    expect((await callback(back).expect(400)).body.code).toBe('INVALID_STATE');
  });

  it('sends the browser back with error=code_rejected when the provider refuses a code already used', async () => {
    const completed = await consent(await beginSignIn());
    await callback(completed).expect(302);
    const fresh = await consent(await beginSignIn());
    fresh.searchParams.set('code', completed.searchParams.get('code') as string);
    const refused = await callback(fresh).expect(302);
    expect(refused.headers.location).toBe(`${CALLBACK_URL}&error=code_rejected`);
    expect(refused.headers['set-cookie']).toBeUndefined();
  });

  it('sends the browser back with error=access_denied when the user declines, and uses the state up', async () => {
    provider.declineNextConsent();
    const back = await consent(await beginSignIn());
    expect(back.searchParams.get('error')).toBe('access_denied');
    const declined = await callback(back).expect(302);
    expect(declined.headers.location).toBe(`${CALLBACK_URL}&error=access_denied`);
    expect(declined.headers['set-cookie']).toBeUndefined();
    expect((await callback(back).expect(400)).body).toEqual({ code: 'ACCESS_DENIED', error: expect.any(String) });
  });

  it('sends the browser back with error=provider_unavailable when the token or userinfo endpoint is down', async () => {
    const tokenDown = await callback(await consent(await beginSignIn('flaky'))).expect(302);
    expect(tokenDown.headers.location).toBe(`${CALLBACK_URL}&error=provider_unavailable`);
    provider.failUserinfo(503);
    try {
      const userinfoDown = await callback(await consent(await beginSignIn())).expect(302);
      expect(userinfoDown.headers.location).toBe(`${CALLBACK_URL}&error=provider_unavailable`);
    } finally {
      provider.failUserinfo(null);
    }
  });

  it('logs no code, state or session id, and no query string of /api/auth paths', async () => {
    expect(secretsSeen.size).toBeGreaterThan(20);
    for (const secret of secretsSeen) expect(logText).not.toContain(secret);
    const lines = logText.trim().split('\n').map((line) => JSON.parse(line) as { msg: string; path?: string });
    const callbacks = lines.filter((line) => line.msg === 'request' && line.path?.startsWith('/api/auth/callback/'));
    expect(callbacks.length).toBeGreaterThan(10);
    for (const line of callbacks) expect(line.path).toMatch(/^\/api\/auth\/callback\/\w+$/);
    expect(lines.filter((line) => line.msg === 'sign-in failed').length).toBeGreaterThan(3);
  });
});
