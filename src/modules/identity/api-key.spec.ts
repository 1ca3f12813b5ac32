import { API_KEY_PREFIX, displayPrefix, generateApiKey, hashApiKey, isApiKeyFormat, parseScopes } from './api-key.js';

describe('API keys', () => {
  it('are pf_live_ followed by 40 base62 characters, different every time', () => {
    const keys = new Set(Array.from({ length: 200 }, generateApiKey));
    expect(keys.size).toBe(200);
    for (const key of keys) {
      expect(key).toMatch(/^pf_live_[0-9A-Za-z]{40}$/);
      expect(isApiKeyFormat(key)).toBe(true);
    }
    expect(isApiKeyFormat(`${API_KEY_PREFIX}short`)).toBe(false);
  });

  it('are stored as a hash and shown afterwards only by a short prefix', () => {
    const key = generateApiKey();
    expect(hashApiKey(key)).toHaveLength(32);
    expect(hashApiKey(key).toString('hex')).not.toContain(key.slice(API_KEY_PREFIX.length));
    expect(displayPrefix(key)).toBe(key.slice(0, 12));
  });

  it('accept only the read, write and keys scopes', () => {
    expect(parseScopes('read, write,read')).toEqual(['read', 'write']);
    expect(parseScopes('read,write,keys')).toEqual(['read', 'write', 'keys']);
    expect(() => parseScopes('admin')).toThrow('Unknown scope "admin"');
    expect(() => parseScopes('')).toThrow('At least one scope');
  });
});
