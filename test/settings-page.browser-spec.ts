import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { closedPort, startOAuthProvider, type TestOAuthProvider } from './support/oauth-provider.js';
import { startTestApp, type TestApp } from './support/test-app.js';

/** Debian's package; .ci/run installs it. Missing, the test fails: it never skips. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** Where to write the README's screenshot (`SETTINGS_PAGE_SCREENSHOT=docs/settings-page.png npm run test:browser`); unset: none. */
const SCREENSHOT = process.env.SETTINGS_PAGE_SCREENSHOT;

let provider: TestOAuthProvider;
let t: TestApp;
let publicUrl: string;
let browser: Browser;
let context: BrowserContext;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`No Chromium at ${CHROMIUM}: install it (apt-get install -y chromium) or set CHROMIUM_PATH.`);
  provider = await startOAuthProvider();
  // The browser follows real redirects, so the service listens where PUBLIC_URL says (plain-http loopback: cookies without Secure).
  const port = await closedPort();
  publicUrl = `http://127.0.0.1:${port}`;
  t = await startTestApp({ env: { PUBLIC_URL: publicUrl, ...provider.env('MOCK'), SIGN_IN_RATE_LIMIT_PER_MINUTE: '0' } });
  await new Promise<void>((resolve, reject) => t.server.once('error', reject).listen(port, '127.0.0.1', resolve));
  browser = await chromium.launch({ executablePath: CHROMIUM });
  context = await browser.newContext({ viewport: { width: 1000, height: 760 }, locale: 'en-US', timezoneId: 'UTC' });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: publicUrl });
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
  await provider?.stop();
});

/** A real HTTP client outside the browser: curl's status for GET /v1/accounts with the key. */
async function curlStatus(key: string): Promise<number> {
  const { stdout } = await promisify(execFile)('curl', ['-s', '-o', '/dev/null', '-w', '%{http_code}', '-H', `Authorization: Bearer ${key}`, `${publicUrl}/v1/accounts`]);
  return Number(stdout);
}

/** Whatever the page complains of: script errors, failed requests, anything its policy refused. */
function problemsOf(page: Page): string[] {
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') problems.push(`console ${message.type()}: ${message.text()}`);
  });
  return problems;
}

/** What the browser's globals are to the functions the test runs in the page (the project's types are Node's, not the DOM's). */
interface Clipboarded {
  navigator: { clipboard: { readText(): Promise<string> } };
}
interface WithBody {
  document: { body: { innerHTML: string } };
}

const rowOf = (page: Page, name: string) => page.locator('#keys tbody tr').filter({ has: page.locator('td:first-child', { hasText: name }) });
const cellsOf = async (page: Page, name: string) => (await rowOf(page, name).locator('td').allTextContents()).slice(0, 5);

async function createKey(page: Page, name: string, scopes: { read: boolean; write: boolean; keys: boolean }): Promise<string> {
  await page.getByLabel('Name', { exact: true }).fill(name);
  for (const [scope, checked] of Object.entries(scopes)) await page.locator(`input[name="scopes"][value="${scope}"]`).setChecked(checked);
  await page.getByRole('button', { name: 'Create key' }).click();
  await page.locator('#created').waitFor({ state: 'visible' });
  return page.locator('#created-key').inputValue();
}

describe('the settings page in Chromium', () => {
  it('signs in through the provider, issues a key that curl can use, and revokes it: curl gets 401', async () => {
    provider.signInAs({ sub: 'browser-ada', name: 'Ada Lovelace' });
    const page = await context.newPage();
    const problems = problemsOf(page);

    await page.goto(`${publicUrl}/settings`);
    await page.getByRole('button', { name: 'Sign in with mock' }).click();
    await page.waitForURL(`${publicUrl}/settings`);
    await page.getByText('Signed in as Ada Lovelace').waitFor();
    await page.getByText('You have no API keys.').waitFor();

    // The key is shown once, and the copy button puts exactly it on the clipboard.
    const key = await createKey(page, 'Budget spreadsheet', { read: true, write: false, keys: false });
    await page.getByRole('button', { name: 'Copy' }).click();
    await page.getByText('Copied to the clipboard.').waitFor();
    expect(await page.evaluate(() => (globalThis as unknown as Clipboarded).navigator.clipboard.readText())).toBe(key);
    await page.getByRole('button', { name: 'Done' }).click();
    expect(await page.content()).not.toContain(key);

    expect(await curlStatus(key)).toBe(200);
    // lastUsedAt is written just after the request it records: the list shows it on a later load.
    for (let attempt = 0; (await cellsOf(page, 'Budget spreadsheet'))[3] === 'Never'; attempt++) {
      if (attempt === 50) throw new Error('The key’s use never showed as "Last used".');
      await page.waitForTimeout(100);
      await page.reload();
      await rowOf(page, 'Budget spreadsheet').waitFor();
    }
    expect(await cellsOf(page, 'Budget spreadsheet')).toEqual(['Budget spreadsheet', `${key.slice(0, 12)}…`, 'read', expect.stringMatching(/\d{4}/), expect.stringMatching(/\d{4}/)]);
    await createKey(page, 'Home server', { read: true, write: true, keys: true });
    await page.getByRole('button', { name: 'Done' }).click();
    await rowOf(page, 'Home server').waitFor();
    if (SCREENSHOT) await page.screenshot({ path: SCREENSHOT, fullPage: true });

    // A name written like markup is shown as text and runs nothing.
    const hostile = '<img src=x onerror="window.pwned=1"> nightly sync';
    const hostileKey = await createKey(page, hostile, { read: true, write: true, keys: false });
    expect(hostileKey).toMatch(/^pf_live_[0-9A-Za-z]{40}$/);
    expect(await page.locator('#created-name').textContent()).toBe(`“${hostile}”`);
    expect(await cellsOf(page, hostile)).toEqual([hostile, `${hostileKey.slice(0, 12)}…`, 'read, write', 'Never', expect.stringMatching(/\d{4}/)]);
    expect(await page.locator('#keys img').count()).toBe(0);
    expect(await page.evaluate(() => (globalThis as { pwned?: number }).pwned)).toBeUndefined();
    await page.getByRole('button', { name: 'Done' }).click();
    expect(await page.locator('#created').isHidden()).toBe(true);
    expect(await page.locator('#created-key').inputValue()).toBe('');

    // Revoking asks first; cancelled, nothing happens.
    await page.getByRole('button', { name: 'Revoke Budget spreadsheet' }).click();
    expect(await page.locator('#revoke-dialog').textContent()).toContain('Revoke Budget spreadsheet?');
    await page.getByRole('button', { name: 'Cancel' }).click();
    expect(await curlStatus(key)).toBe(200);
    await page.getByRole('button', { name: 'Revoke Budget spreadsheet' }).click();
    await page.getByRole('button', { name: 'Revoke key' }).click();
    await page.getByText('Revoked “Budget spreadsheet”. 2 keys.').waitFor();
    expect(await rowOf(page, 'Budget spreadsheet').count()).toBe(0);
    expect(await curlStatus(key)).toBe(401);
    expect(await curlStatus(hostileKey)).toBe(200);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in with mock' }).waitFor();
    expect(problems).toEqual([]);
  });

  it('holds the page to its policy in the browser: an HTML string given to the DOM is refused', async () => {
    const page = await context.newPage();
    const problems = problemsOf(page);
    await page.goto(`${publicUrl}/settings`);
    await page.getByRole('button', { name: 'Sign in with mock' }).waitFor();
    const outcome = await page.evaluate(() => {
      try {
        (globalThis as unknown as WithBody).document.body.innerHTML = '<b>injected</b>';
        return 'assigned';
      } catch (error) {
        return (error as Error).name;
      }
    });
    expect(outcome).toBe('TypeError');
    expect(problems).toEqual([expect.stringContaining("requires 'TrustedHTML' assignment")]);
  });

  it('comes back to the page with the reason when the sign-in is declined at the provider', async () => {
    const page = await context.newPage();
    const problems = problemsOf(page);
    provider.declineNextConsent();
    await page.goto(`${publicUrl}/settings`);
    await page.getByRole('button', { name: 'Sign in with mock' }).click();
    await page.waitForURL(`${publicUrl}/settings?error=access_denied`);
    await page.getByText('The sign-in did not complete. You declined to sign in at the provider.').waitFor();
    expect(problems).toEqual([]);
  });
});
