import {
  effectiveExpiry,
  generateSessionToken,
  hashSessionToken,
  isSessionLive,
  isSessionTokenFormat,
  newSessionTimes,
  refreshedSessionTimes,
  sessionLifetime,
} from './session.js';

const at = (iso: string) => new Date(iso);
const DAY = 24 * 60 * 60 * 1000;

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
    expect(refreshedSessionTimes(times, at('2026-11-02T09:00:00.001Z'))).toEqual({
      openedAt: at('2026-11-01T09:00:00Z'),
      refreshedAt: at('2026-11-02T09:00:00.001Z'),
      expiresAt: at('2026-12-02T09:00:00.001Z'),
    });
  });

  it('stop sliding at the absolute cap counted from sign-in (90 days by default), however active', () => {
    const opened = at('2026-01-01T00:00:00Z');
    let times = newSessionTimes(opened);
    for (let day = 2; day <= 89; day += 2) {
      const now = new Date(opened.getTime() + day * DAY);
      expect(isSessionLive(times, now)).toBe(true);
      times = refreshedSessionTimes(times, now) ?? times;
    }
    expect(times.expiresAt).toEqual(new Date(opened.getTime() + 90 * DAY));
    expect(refreshedSessionTimes(times, new Date(opened.getTime() + 89.5 * DAY))).toBeNull();
    expect(isSessionLive(times, new Date(opened.getTime() + 90 * DAY - 1))).toBe(true);
    expect(isSessionLive(times, new Date(opened.getTime() + 90 * DAY))).toBe(false);
  });

  it('follow a configured cap, also one shorter than the sliding lifetime or lowered after sign-in', () => {
    const opened = at('2026-01-01T00:00:00Z');
    const week = sessionLifetime(7);
    expect(newSessionTimes(opened, week).expiresAt).toEqual(at('2026-01-08T00:00:00Z'));
    const underDefault = newSessionTimes(opened);
    expect(isSessionLive(underDefault, at('2026-01-08T00:00:00Z'), week)).toBe(false);
    expect(effectiveExpiry(underDefault, week)).toEqual(at('2026-01-08T00:00:00Z'));
  });
});
