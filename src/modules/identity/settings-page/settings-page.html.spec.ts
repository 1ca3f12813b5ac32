import { settingsPageSecurityPolicy } from './settings-page.http-controller.js';
import { signedInPage, signedOutPage } from './settings-page.html.js';

const NONCE = 'bm9uY2Utb2YtdGhpcy1wYWdl';
const scriptAndStyleTags = (html: string) => [...html.matchAll(/<(script|style)\b[^>]*>/g)].map((match) => match[0]);

describe('the settings page', () => {
  it('runs one script, from a file, and one style, each with the response’s nonce; no inline handler anywhere', () => {
    for (const html of [signedInPage({ nonce: NONCE, user: { email: 'a@example.com', name: null } }), signedOutPage({ nonce: NONCE, providers: ['mock'], callbackURL: 'http://localhost:3000/settings', failure: null })]) {
      expect(scriptAndStyleTags(html)).toEqual([`<style nonce="${NONCE}">`, `<script type="module" src="/settings/settings.js" nonce="${NONCE}">`]);
      expect(html).toMatch(/<script[^>]*><\/script>/);
      expect(html).not.toMatch(/\son[a-z]+=/i);
    }
    const policy = new Map(settingsPageSecurityPolicy(NONCE).split('; ').map((directive) => [directive.split(' ')[0], directive.split(' ').slice(1).join(' ')]));
    expect(policy.get('default-src')).toBe("'none'");
    expect(policy.get('script-src')).toBe(`'nonce-${NONCE}'`);
    expect(policy.get('style-src')).toBe(`'nonce-${NONCE}'`);
    expect(policy.get('connect-src')).toBe("'self'");
    expect(policy.get('frame-ancestors')).toBe("'none'");
    expect(policy.get('require-trusted-types-for')).toBe("'script'");
  });

  it('shows who is signed in as text: a name from the provider written like markup stays text', () => {
    const html = signedInPage({ nonce: NONCE, user: { email: null, name: '<img src=x onerror=alert(1)>"&' } });
    expect(html).toContain('Signed in as <strong>&lt;img src=x onerror=alert(1)&gt;&quot;&amp;</strong>');
    expect(html).not.toContain('<img');
    expect(signedInPage({ nonce: NONCE, user: { email: null, name: null } })).toContain('Signed in ·');
  });

  it('offers a button per configured provider, and says how to get a key when none is configured', () => {
    const html = signedOutPage({ nonce: NONCE, providers: ['google', 'github', 'corp'], callbackURL: 'https://api.example.com/settings', failure: null });
    expect(html).toContain('data-callback-url="https://api.example.com/settings"');
    expect(html).toContain('data-provider="google">Sign in with Google</button>');
    expect(html).toContain('data-provider="github">Sign in with GitHub</button>');
    expect(html).toContain('data-provider="corp">Sign in with corp</button>');
    const none = signedOutPage({ nonce: NONCE, providers: [], callbackURL: 'https://api.example.com/settings', failure: null });
    expect(none).not.toContain('data-provider');
    expect(none).toContain('npx ledgerline api-keys create');
  });

  it('says why a sign-in failed from the codes the callback sends, and never echoes anything else it is given', () => {
    const declined = signedOutPage({ nonce: NONCE, providers: ['mock'], callbackURL: 'https://api.example.com/settings', failure: 'access_denied' });
    expect(declined).toContain('The sign-in did not complete. You declined to sign in at the provider.');
    for (const failure of ['<script>alert(1)</script>', 'toString', '__proto__']) {
      const html = signedOutPage({ nonce: NONCE, providers: ['mock'], callbackURL: 'https://api.example.com/settings', failure });
      expect(html).toContain('The sign-in did not complete. Start again.');
      expect(html).not.toContain(failure);
    }
  });
});
