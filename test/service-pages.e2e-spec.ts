import request from 'supertest';
import { startTestApp, type TestApp } from './support/test-app.js';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ env: { BROKERAGE_SYNC_INTERVAL_MINUTES: '0' } });
});
afterAll(() => t.close());

/** The portal as the user's browser opens it (no credential), in `browser`'s cookie jar; the return URL it sends the browser to. */
async function throughThePortal(key: string, browser: ReturnType<typeof request.agent>): Promise<URL> {
  const redirectUrl = new URL((await t.as(key).post('/v1/brokerage/connect', {}).expect(200)).body.redirectUrl);
  const portal = await browser.get(`${redirectUrl.pathname}${redirectUrl.search}`).redirects(0).expect(302);
  return new URL(portal.headers.location as string);
}

const namesOf = async (key: string, authorizationId: string) =>
  ((await t.as(key).get('/v1/brokerage/accounts').expect(200)).body.accounts as Array<{ name: string; brokerageAuthorizationId: string | null }>)
    .filter((account) => account.brokerageAuthorizationId === authorizationId)
    .map((account) => account.name);

describe('pages for people at the service root', () => {
  it('serves a page at / that says what the service is and links the API reference, the OpenAPI document and the settings page, with no credential', async () => {
    const page = await request(t.server).get('/?utm_source=newsletter').expect(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['content-security-policy']).toContain("default-src 'none'");
    expect(page.text).toContain('personal-finance HTTP/JSON API');
    expect(page.text).toContain('<a href="/v1/docs">API reference</a>');
    expect(page.text).toContain('<a href="/v1/openapi.json">');
    expect(page.text).toContain('<a href="/settings">Settings</a>');
    await request(t.server).get('/v1/docs/').expect(200);
    await request(t.server).get('/v1/openapi.json').expect(200);
  });

  it('is where the portal returns the browser by default: connected, the accounts it connected to that browser alone, and that the window can close', async () => {
    const { key } = await t.newUser();
    const browser = request.agent(t.server);
    const returnTo = await throughThePortal(key, browser);
    expect(`${returnTo.origin}${returnTo.pathname}`).toBe(`${t.runtime.config.publicUrl}/`);
    const authorizationId = returnTo.searchParams.get('brokerageAuthorizationId') as string;
    expect(returnTo.searchParams.get('status')).toBe('connected');
    const names = await namesOf(key, authorizationId);
    expect(names.length).toBe(2);

    const shown = await browser.get(`/${returnTo.search}`).expect(200);
    expect(shown.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(shown.headers['cache-control']).toBe('no-store');
    expect(shown.text).toContain('Your brokerage is connected');
    expect(shown.text).toContain('You can close this window');
    for (const name of names) expect(shown.text).toContain(`<li>${name}</li>`);

    // The same URL in another browser (the id is in the address bar, the history, a referer): no account of the user's.
    const elsewhere = await request(t.server).get(`/${returnTo.search}`).expect(200);
    expect(elsewhere.text).toContain('Your brokerage is connected');
    for (const name of names) expect(elsewhere.text).not.toContain(name);
    const forged = await request(t.server).get(`/${returnTo.search}`).set('Cookie', 'pf_portal_return=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA').expect(200);
    for (const name of names) expect(forged.text).not.toContain(name);

    // The browser's cookie names its own connection only: another authorization's id in the URL shows nothing.
    const other = await t.newUser();
    const otherBrowser = request.agent(t.server);
    const otherReturn = await throughThePortal(other.key, otherBrowser);
    const crossed = await browser.get(`/${otherReturn.search}`).expect(200);
    for (const name of await namesOf(other.key, otherReturn.searchParams.get('brokerageAuthorizationId') as string)) expect(crossed.text).not.toContain(`<li>${name}</li>`);
    expect(crossed.text).not.toContain('Accounts connected');
  });

  it('says so when the connection failed', async () => {
    const failed = await request(t.server).get('/?brokerageAuthorizationId=whatever&status=failed').expect(200);
    expect(failed.text).toContain('did not complete');
    expect(failed.text).toContain('You can close this window');
    expect(failed.text).not.toContain('Accounts connected');
  });
});
