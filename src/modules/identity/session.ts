import { createHash, randomBytes } from 'node:crypto';

const DAY_MS = 24 * 60 * 60 * 1000;
export const SESSION_LIFETIME_MS = 30 * DAY_MS;
export const SESSION_REFRESH_AFTER_MS = DAY_MS;

/** An opaque cookie value: 256 bits from the CSPRNG, base64url. */
export function generateSessionToken(): string {
  return randomBytes(32).toString('base64url');
}

/** High entropy, so a plain SHA-256 is a safe lookup key; the token itself is never stored. */
export function hashSessionToken(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}

export function isSessionTokenFormat(candidate: string): boolean {
  return /^[A-Za-z0-9_-]{43}$/.test(candidate);
}

export interface SessionTimes {
  readonly refreshedAt: Date;
  readonly expiresAt: Date;
}

export function newSessionTimes(now: Date): SessionTimes {
  return { refreshedAt: now, expiresAt: new Date(now.getTime() + SESSION_LIFETIME_MS) };
}

/** An active session is extended to a full lifetime from now once a day, not on every request. */
export function refreshedSessionTimes(current: SessionTimes, now: Date): SessionTimes | null {
  if (now.getTime() - current.refreshedAt.getTime() <= SESSION_REFRESH_AFTER_MS) return null;
  return newSessionTimes(now);
}

export function isSessionLive(times: SessionTimes, now: Date): boolean {
  return now.getTime() < times.expiresAt.getTime();
}
