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
      // Trusted for email: a verified address joins the user who has it.
      ...provider.env('MOCK', { TRUST_EMAIL: 'true' }),
      // The same server, not trusted for email (the default for a provider that is not a preset).
      ...provider.env('LAX'),
      // Sign-ins here come one after the other from one address; rate-limit.e2e-spec covers the limit.
      SIGN_IN_RATE_LIMIT_PER_MINUTE: '0',
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

/** The pf_sign_in cookie of the browser that began each sign-in, by its state. */
const browserOf = new Map<string, string>();

/** Begins a sign-in from a browser (a new one unless its pf_sign_in cookie is given). */
async function beginSignIn(name = 'mock', callbackURL = CALLBACK_URL, browser?: string): Promise<URL> {
  const post = request(t.server).post('/api/auth/sign-in/social');
  if (browser) post.set('Cookie', browser);
  const response = await post.send({ provider: name, callbackURL }).expect(200).expect(documented('POST', '/api/auth/sign-in/social'));
  expect(response.body.redirect).toBe(true);
  const url = new URL(response.body.url);
  secretsSeen.add(url.searchParams.get('state') as string);
  browserOf.set(url.searchParams.get('state') as string, cookieOf(response, 'pf_sign_in').cookie);
  return url;
}

/** The provider's consent screen, approved (or declined), and where it sends the browser. */
async function consent(authorizeUrl: URL): Promise<URL> {
  const back = await provider.authorize(authorizeUrl.toString());
  for (const name of ['code', 'state']) if (back.searchParams.get(name)) secretsSeen.add(back.searchParams.get(name) as string);
  return back;
}

/** The provider's redirect followed by a browser: by default the one that began that sign-in; `null` for one without the cookie. */
function callback(location: URL | string, browser?: string | null) {
  const url = typeof location === 'string' ? new URL(location, PUBLIC_URL) : location;
  const cookie = browser === undefined ? browserOf.get(url.searchParams.get('state') ?? '') : browser;
  const get = request(t.server).get(url.pathname + url.search);
  if (cookie) get.set('Cookie', cookie);
  return get.expect(documented('GET', url.pathname));
}

function cookieOf(response: request.Response, name: string): { cookie: string; attributes: string } {
  const header = ([] as string[]).concat(response.headers['set-cookie'] ?? []).find((line) => line.startsWith(`${name}=`));
  if (!header) throw new Error(`No ${name} cookie in ${JSON.stringify(response.headers)}`);
  const [pair, ...attributes] = header.split(';').map((part) => part.trim());
  if (pair.length > name.length + 1) secretsSeen.add(pair.slice(name.length + 1));
  return { cookie: pair, attributes: attributes.join('; ') };
}

const sessionCookieOf = (response: request.Response) => cookieOf(response, 'pf_session');

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
    // PUBLIC_URL is plain http, but not localhost: the cookie is Secure whatever NODE_ENV says.
    expect(attributes).toContain('Secure');
    // The sign-in cookie has done its job.
    expect(cookieOf(signedIn, 'pf_sign_in')).toEqual({ cookie: 'pf_sign_in=', attributes: expect.stringMatching(/^Path=\/api\/auth; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; Secure; SameSite=Lax$/) });

    const session = await request(t.server).get('/api/auth/session').set('Cookie', cookie).expect(200).expect(documented('GET', '/api/auth/session'));
    expect(session.body).toEqual({ user: { id: expect.any(String), email: 'ada@example.com', name: 'Ada Lovelace' }, session: { expiresAt: expect.any(String) } });
    const browser = t.withSession(cookie, APP);
    await browser.post('/v1/accounts', { name: 'Checking', type: 'bank', subtype: 'checking', currentBalance: 100 }).expect(201);
    expect((await browser.get('/v1/accounts').expect(200)).body.accounts).toHaveLength(1);

    // The signed-in user issues themselves an API key; it sees the same data.
    const issued = await browser.post('/v1/api-keys', { name: 'spreadsheet' }).expect(201);
    expect(issued.body.scopes).toEqual(['read', 'write']);
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
    expect(unknown.body).toEqual({ code: 'UNKNOWN_PROVIDER', error: expect.stringContaining('flaky, lax, mock') });
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
    // No session; only the used-up sign-in cookie is cleared.
    expect(refused.headers['set-cookie']).toEqual([expect.stringMatching(/^pf_sign_in=; /)]);
  });

  it('sends the browser back with error=access_denied when the user declines, and uses the state up', async () => {
    provider.declineNextConsent();
    const back = await consent(await beginSignIn());
    expect(back.searchParams.get('error')).toBe('access_denied');
    const declined = await callback(back).expect(302);
    expect(declined.headers.location).toBe(`${CALLBACK_URL}&error=access_denied`);
    // No session; only the used-up sign-in cookie is cleared.
    expect(declined.headers['set-cookie']).toEqual([expect.stringMatching(/^pf_sign_in=; /)]);
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

  it('binds each sign-in to the browser that began it with a short-lived pf_sign_in cookie, kept across sign-ins under way', async () => {
    const response = await request(t.server).post('/api/auth/sign-in/social').send({ provider: 'mock', callbackURL: CALLBACK_URL }).expect(200);
    const { cookie, attributes } = cookieOf(response, 'pf_sign_in');
    expect(cookie).toMatch(/^pf_sign_in=[\w-]{43}$/);
    expect(attributes).toMatch(/^Max-Age=600; Path=\/api\/auth; Expires=[^;]+; HttpOnly; Secure; SameSite=Lax$/);
    // A second sign-in from the same browser (another tab) keeps the binding, so both can finish.
    const again = await request(t.server).post('/api/auth/sign-in/social').set('Cookie', cookie).send({ provider: 'mock', callbackURL: CALLBACK_URL }).expect(200);
    expect(cookieOf(again, 'pf_sign_in').cookie).toBe(cookie);
    const flows = await t.runtime.database.db.selectFrom('sign_in_flows').select('browser_binding_hash').execute();
    expect(JSON.stringify(flows.map((row) => row.browser_binding_hash?.toString('latin1')))).not.toContain(cookie.slice('pf_sign_in='.length));
  });

  it("refuses someone else's sign-in in a browser that did not begin it (no login CSRF), and that refusal spoils nothing", async () => {
    provider.signInAs({ sub: 'mallory-1', email: 'mallory@example.com', email_verified: true, name: 'Mallory' });
    const attackersSignIn = await beginSignIn();
    const attackersBrowser = browserOf.get(attackersSignIn.searchParams.get('state') as string) as string;
    const back = await consent(attackersSignIn);
    // The victim's browser is sent to the attacker's callback URL: with no sign-in cookie, with one
    // of a sign-in of its own, or with made-up ones.
    const victimsOwn = browserOf.get((await beginSignIn()).searchParams.get('state') as string) as string;
    for (const browser of [null, victimsOwn, `pf_sign_in=${'A'.repeat(43)}`, 'pf_sign_in=garbage', `pf_session=x; ${attackersBrowser.replace('pf_sign_in', 'pf_sign_inx')}`]) {
      const refused = await callback(back, browser).expect(400);
      expect([browser, refused.body]).toEqual([browser, { code: 'INVALID_STATE', error: expect.stringContaining('start again') }]);
      expect(refused.headers['set-cookie']).toBeUndefined();
    }
    // The code was never exchanged and the flow never used up: the browser that began it finishes.
    const finished = await callback(back, attackersBrowser).expect(302);
    expect(finished.headers.location).toBe(CALLBACK_URL);
    const session = await request(t.server).get('/api/auth/session').set('Cookie', sessionCookieOf(finished).cookie).expect(200);
    expect(session.body.user.name).toBe('Mallory');
  });

  it('joins an existing user by email only for a provider trusted for email, and gives no address from an untrusted one', async () => {
    const operatorMade = await t.newUser();
    const { email } = await t.runtime.database.db.selectFrom('users').select('email').where('id', '=', operatorMade.userId).executeTakeFirstOrThrow();
    const sessionOf = async (cookie: string) => (await request(t.server).get('/api/auth/session').set('Cookie', cookie).expect(200)).body;

    provider.signInAs({ sub: 'lax-claimer', email: email as string, email_verified: true });
    const claimer = await sessionOf(await signIn('lax'));
    expect(claimer.user.id).not.toBe(operatorMade.userId);
    expect(claimer.user.email).toBeNull();

    // A verified address that is free is not given to the new user either: otherwise its real owner,
    // signing in later through a trusted provider, would walk into the account the claimer made.
    provider.signInAs({ sub: 'lax-first', email: 'first-come@example.com', email_verified: true });
    const first = await sessionOf(await signIn('lax'));
    expect(first.user.email).toBeNull();
    provider.signInAs({ sub: 'trusted-owner', email: 'first-come@example.com', email_verified: true });
    const owner = await sessionOf(await signIn('mock'));
    expect(owner.user.id).not.toBe(first.user.id);
    expect(owner.user.email).toBe('first-come@example.com');

    // The untrusted provider's identity still signs in as its own user next time.
    provider.signInAs({ sub: 'lax-first', email: 'first-come@example.com', email_verified: true });
    expect((await sessionOf(await signIn('lax'))).user.id).toBe(first.user.id);
  });

  it('refuses a non-ASCII or malformed callbackURL with 400 and the flat error body, never a 500 or a redirect', async () => {
    const refusals = [
      `${APP}/caf\u00e9`,
      `${APP}/\u20ac`,
      `${APP}/\u{1F600}`,
      `${APP}/a\nb`,
      `${APP}/a\tb`,
      `${APP}/\r\nSet-Cookie: pf_session=x`,
      `${APP}/a b`,
      ' https://app.example.com/',
      'https://\u00e4pp.example.com/',
      'https://app.example.com:99999/',
      'http://[::1',
      'https://',
      '',
      `${APP}/${'%'.repeat(3)}\u0085`,
    ];
    for (const callbackURL of refusals) {
      const refused = await request(t.server).post('/api/auth/sign-in/social').send({ provider: 'mock', callbackURL }).expect(documented('POST', '/api/auth/sign-in/social'));
      expect([callbackURL, refused.status, refused.body]).toEqual([callbackURL, 400, { code: 'CALLBACK_URL_NOT_ALLOWED', error: expect.stringMatching(/^callbackURL /) }]);
      expect(refused.headers['set-cookie']).toBeUndefined();
    }
    // Percent-encoded, the same address is fine, and the browser is sent back to exactly it.
    provider.signInAs({ sub: 'encoded-1' });
    const encoded = `${APP}/caf%C3%A9?next=%E2%82%AC`;
    const back = await callback(await consent(await beginSignIn('mock', encoded))).expect(302);
    expect(back.headers.location).toBe(encoded);
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
