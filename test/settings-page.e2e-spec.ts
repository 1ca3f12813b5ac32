import request from 'supertest';
import { startOAuthProvider, type ProviderUser, type TestOAuthProvider } from './support/oauth-provider.js';
import { startTestApp, type TestApp } from './support/test-app.js';

/** Plain-http localhost: cookies without Secure, as on a developer's machine (the browser test's setting). */
const PUBLIC_URL = 'http://localhost:3999';
const SETTINGS = `${PUBLIC_URL}/settings`;

/** Real time, moved on by a test that needs a day to pass. */
let clockOffsetMs = 0;
const clock = { now: () => new Date(Date.now() + clockOffsetMs) };

let t: TestApp;
let provider: TestOAuthProvider;

beforeAll(async () => {
  provider = await startOAuthProvider();
  // No ALLOWED_CALLBACK_ORIGINS: the service's own page is where sign-in returns.
  t = await startTestApp({ clock, env: { PUBLIC_URL, ...provider.env('MOCK'), SIGN_IN_RATE_LIMIT_PER_MINUTE: '0' } });
});
afterAll(async () => {
  await t.close();
  await provider.stop();
});

function cookieOf(response: request.Response, name: string): string {
  const line = ([] as string[]).concat(response.headers['set-cookie'] ?? []).find((header) => header.startsWith(`${name}=`));
  if (!line) throw new Error(`No ${name} cookie in ${JSON.stringify(response.headers)}`);
  return line.split(';')[0];
}

/** The page's sign-in, as its script and the browser run it: begin with this page as callbackURL, consent, come back. */
async function signInFromThePage(user: ProviderUser, options: { decline?: boolean } = {}): Promise<request.Response> {
  provider.signInAs(user);
  if (options.decline) provider.declineNextConsent();
  const begun = await request(t.server).post('/api/auth/sign-in/social').set('Origin', PUBLIC_URL).send({ provider: 'mock', callbackURL: SETTINGS }).expect(200);
  const back = await provider.authorize(begun.body.url);
  return request(t.server).get(back.pathname + back.search).set('Cookie', cookieOf(begun, 'pf_sign_in')).expect(302);
}

async function signedInCookie(user: ProviderUser): Promise<string> {
  return cookieOf(await signInFromThePage(user), 'pf_session');
}

const settingsPage = (cookie?: string) => {
  const get = request(t.server).get('/settings');
  return cookie ? get.set('Cookie', cookie) : get;
};

const nonceOf = (response: request.Response) => /script-src 'nonce-([^']+)'/.exec(response.headers['content-security-policy'] as string)?.[1];

describe('the settings page (/settings)', () => {
  it('offers a signed-out visitor the configured provider, with a strict policy and this page to come back to', async () => {
    for (const cookie of [undefined, 'pf_session=not-a-session', `pf_session=${'A'.repeat(43)}`]) {
      const page = await settingsPage(cookie).expect(200);
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(page.headers['cache-control']).toBe('no-store');
      expect(page.headers['x-frame-options']).toBe('DENY');
      expect(page.headers['x-content-type-options']).toBe('nosniff');
      expect(page.headers['content-security-policy']).toMatch(/^default-src 'none'; script-src 'nonce-[\w+/=]{24}'; style-src 'nonce-[\w+/=]{24}'; connect-src 'self'; /);
      expect(page.text).toContain('data-page="signed-out"');
      expect(page.text).toContain(`data-callback-url="${SETTINGS}"`);
      expect(page.text).toContain('<button type="button" class="primary" data-provider="mock">Sign in with mock</button>');
      expect(page.headers['set-cookie']).toBeUndefined();
    }
  });

  it('is where the sign-in brings the browser back, signed in: the service’s own origin is an allowed callbackURL without ALLOWED_CALLBACK_ORIGINS', async () => {
    const returned = await signInFromThePage({ sub: 'page-ada', email: 'ada@example.com', email_verified: true, name: 'Ada' });
    expect(returned.headers.location).toBe(SETTINGS);
    const page = await settingsPage(cookieOf(returned, 'pf_session')).expect(200);
    expect(page.text).toContain('data-page="signed-in"');
    expect(page.text).toContain('Signed in as <strong>Ada</strong>');
    expect(page.text).toContain('id="create-form"');

    // Another origin, or one that merely starts like the service's, is still refused.
    for (const callbackURL of ['http://localhost:3998/settings', 'http://localhost:3999.evil.example/settings', 'https://localhost:3999/settings']) {
      const refused = await request(t.server).post('/api/auth/sign-in/social').send({ provider: 'mock', callbackURL }).expect(400);
      expect(refused.body.code).toBe('CALLBACK_URL_NOT_ALLOWED');
    }
  });

  it('says why a sign-in did not complete, from the code the callback adds, and nothing else of the query', async () => {
    const declined = await signInFromThePage({ sub: 'page-decliner' }, { decline: true });
    expect(declined.headers.location).toBe(`${SETTINGS}?error=access_denied`);
    const page = await request(t.server).get('/settings?error=access_denied').expect(200);
    expect(page.text).toContain('The sign-in did not complete. You declined to sign in at the provider.');
    const forged = await request(t.server).get(`/settings?error=${encodeURIComponent('<script>alert(1)</script>')}&utm_source=x`).expect(200);
    expect(forged.text).toContain('The sign-in did not complete. Start again.');
    expect(forged.text).not.toContain('alert(1)');
  });

  it('serves its script as a file, and a fresh nonce with every page that names it', async () => {
    const script = await request(t.server).get('/settings/settings.js').expect(200);
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(script.headers['x-content-type-options']).toBe('nosniff');
    expect(script.text).toContain("call('POST', '/v1/api-keys'");
    expect(script.text).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(/);

    const [first, second] = [await settingsPage().expect(200), await settingsPage().expect(200)];
    expect(nonceOf(first)).not.toBe(nonceOf(second));
    expect(first.text).toContain(`<script type="module" src="/settings/settings.js" nonce="${nonceOf(first)}"></script>`);
  });

  it('manages keys only through the /v1 operations, under their session and cross-site rules', async () => {
    const cookie = await signedInCookie({ sub: 'page-grace', name: 'Grace' });
    const created = await t.withSession(cookie, PUBLIC_URL).post('/v1/api-keys', { name: 'Budget spreadsheet', scopes: ['read'] }).expect(201);
    await request(t.server).get('/v1/accounts').set('Authorization', `Bearer ${created.body.key}`).expect(200);
    // Without the page's Origin, or from another site, the cookie changes nothing.
    await t.withSession(cookie, null).post('/v1/api-keys', { name: 'no origin' }).expect(403);
    await t.withSession(cookie, 'https://evil.example').delete(`/v1/api-keys/${created.body.id}`).expect(403);
    await t.withSession(cookie, PUBLIC_URL).delete(`/v1/api-keys/${created.body.id}`).expect(200);
    await request(t.server).get('/v1/accounts').set('Authorization', `Bearer ${created.body.key}`).expect(401);
  });

  it('shows a user nothing of another’s: not their name, nor their keys', async () => {
    const alice = await signedInCookie({ sub: 'page-alice', email: 'alice@example.com', email_verified: true, name: 'Alice' });
    const bob = await signedInCookie({ sub: 'page-bob', email: 'bob@example.com', email_verified: true, name: 'Bob' });
    const alicesKey = (await t.withSession(alice, PUBLIC_URL).post('/v1/api-keys', { name: 'alice-tax-script' }).expect(201)).body;

    const alicesPage = await settingsPage(alice).expect(200);
    // The page itself carries no key: its script reads them with the cookie.
    expect(alicesPage.text).not.toContain('alice-tax-script');
    const bobsPage = await settingsPage(bob).expect(200);
    expect(bobsPage.text).toContain('Signed in as <strong>Bob</strong>');
    for (const text of ['alice', 'Alice', alicesKey.prefix, alicesKey.id]) expect(bobsPage.text).not.toContain(text);
    const bobsKeys = (await t.withSession(bob).get('/v1/api-keys').expect(200)).body.apiKeys as Array<{ id: string }>;
    expect(bobsKeys.map((key) => key.id)).not.toContain(alicesKey.id);
    await t.withSession(bob, PUBLIC_URL).delete(`/v1/api-keys/${alicesKey.id}`).expect(404);
  });

  it('extends the session as any request with the cookie does, and sends the browser the cookie again', async () => {
    const cookie = await signedInCookie({ sub: 'page-returning' });
    expect((await settingsPage(cookie).expect(200)).headers['set-cookie']).toBeUndefined();
    clockOffsetMs = 24 * 60 * 60 * 1000 + 1000;
    try {
      const nextDay = await settingsPage(cookie).expect(200);
      expect(nextDay.text).toContain('data-page="signed-in"');
      expect(cookieOf(nextDay, 'pf_session')).toBe(cookie);
    } finally {
      clockOffsetMs = 0;
    }
  });

  it('is signed out again once the session is', async () => {
    const cookie = await signedInCookie({ sub: 'page-leaver' });
    await request(t.server).post('/api/auth/sign-out').set('Cookie', cookie).set('Origin', PUBLIC_URL).expect(200);
    expect((await settingsPage(cookie).expect(200)).text).toContain('data-page="signed-out"');
  });

  it('stays out of the OpenAPI document, like the other pages for people', () => {
    expect(Object.keys(t.openApi.document.paths ?? {}).filter((path) => path.includes('settings'))).toEqual([]);
  });
});
