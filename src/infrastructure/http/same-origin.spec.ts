import { SameOriginPolicy } from './same-origin.js';

describe('the same-origin check for cookie-authenticated writes', () => {
  const policy = new SameOriginPolicy('https://api.example.com', ['https://app.example.com']);

  it('accepts the service itself and an allowed web app, by Origin or else by Referer', () => {
    expect(policy.allows({ origin: 'https://api.example.com' })).toBe(true);
    expect(policy.allows({ origin: 'https://app.example.com' })).toBe(true);
    expect(policy.allows({ referer: 'https://app.example.com/settings/keys?tab=1' })).toBe(true);
  });

  it('refuses another origin, a look-alike, a missing or opaque origin, and a malformed one', () => {
    expect(policy.allows({ origin: 'https://evil.example.net' })).toBe(false);
    expect(policy.allows({ origin: 'https://app.example.com.evil.net' })).toBe(false);
    expect(policy.allows({ origin: 'http://app.example.com' })).toBe(false);
    expect(policy.allows({})).toBe(false);
    expect(policy.allows({ origin: 'null' })).toBe(false);
    expect(policy.allows({ referer: 'not a url' })).toBe(false);
  });

  it('lets Origin win over Referer when both are sent', () => {
    expect(policy.allows({ origin: 'https://evil.example.net', referer: 'https://app.example.com/' })).toBe(false);
  });
});
