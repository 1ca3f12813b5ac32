import { generateSessionToken, hashSessionToken, isSessionLive, isSessionTokenFormat, newSessionTimes, refreshedSessionTimes } from './session.js';

const at = (iso: string) => new Date(iso);

describe('sessions', () => {
  it('are opaque 256-bit tokens, stored only as their SHA-256', () => {
    const tokens = new Set(Array.from({ length: 100 }, generateSessionToken));
    expect(tokens.size).toBe(100);
    for (const token of tokens) expect(isSessionTokenFormat(token)).toBe(true);
    const token = [...tokens][0];
    expect(hashSessionToken(token)).toHaveLength(32);
    expect(hashSessionToken(token).toString('base64url')).not.toBe(token);
  });

  it('live 30 days from opening', () => {
    const times = newSessionTimes(at('2026-11-01T09:00:00Z'));
    expect(times.expiresAt).toEqual(at('2026-12-01T09:00:00Z'));
    expect(isSessionLive(times, at('2026-12-01T08:59:59.999Z'))).toBe(true);
    expect(isSessionLive(times, at('2026-12-01T09:00:00Z'))).toBe(false);
  });

  it('are refreshed to 30 days from now only once more than 24 hours have passed since the last refresh', () => {
    const times = newSessionTimes(at('2026-11-01T09:00:00Z'));
    expect(refreshedSessionTimes(times, at('2026-11-02T09:00:00Z'))).toBeNull();
    expect(refreshedSessionTimes(times, at('2026-11-02T09:00:00.001Z'))).toEqual({ refreshedAt: at('2026-11-02T09:00:00.001Z'), expiresAt: at('2026-12-02T09:00:00.001Z') });
  });
});
