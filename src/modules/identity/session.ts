import { createHash, randomBytes } from 'node:crypto';

const DAY_MS = 24 * 60 * 60 * 1000;
export const SESSION_LIFETIME_MS = 30 * DAY_MS;
export const SESSION_REFRESH_AFTER_MS = DAY_MS;
export const DEFAULT_SESSION_MAX_LIFETIME_DAYS = 90;

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
  /** When the user signed in: the absolute cap counts from here, whatever the refreshes. */
  readonly openedAt: Date;
  readonly refreshedAt: Date;
  readonly expiresAt: Date;
}

/**
 * Sliding 30 days, capped: a stolen cookie used every day would otherwise live for ever. The cap
 * (SESSION_MAX_LIFETIME_DAYS, default 90) counts from sign-in; past it the user signs in again.
 */
export interface SessionLifetime {
  readonly maxLifetimeMs: number;
}

export const DEFAULT_SESSION_LIFETIME: SessionLifetime = { maxLifetimeMs: DEFAULT_SESSION_MAX_LIFETIME_DAYS * DAY_MS };

export function sessionLifetime(maxLifetimeDays: number): SessionLifetime {
  return { maxLifetimeMs: maxLifetimeDays * DAY_MS };
}

function capOf(openedAt: Date, lifetime: SessionLifetime): number {
  return openedAt.getTime() + lifetime.maxLifetimeMs;
}

export function newSessionTimes(now: Date, lifetime: SessionLifetime = DEFAULT_SESSION_LIFETIME): SessionTimes {
  return { openedAt: now, refreshedAt: now, expiresAt: new Date(Math.min(now.getTime() + SESSION_LIFETIME_MS, capOf(now, lifetime))) };
}

/**
 * An active session is extended to a full lifetime from now once a day, not on every request,
 * and never past its cap: once the cap is the expiry there is nothing left to extend.
 */
export function refreshedSessionTimes(current: SessionTimes, now: Date, lifetime: SessionLifetime = DEFAULT_SESSION_LIFETIME): SessionTimes | null {
  if (now.getTime() - current.refreshedAt.getTime() <= SESSION_REFRESH_AFTER_MS) return null;
  const expiresAt = Math.min(now.getTime() + SESSION_LIFETIME_MS, capOf(current.openedAt, lifetime));
  if (expiresAt <= current.expiresAt.getTime()) return null;
  return { openedAt: current.openedAt, refreshedAt: now, expiresAt: new Date(expiresAt) };
}

/** Live until its expiry, and never past the cap (a cap lowered since sign-in applies at once). */
export function isSessionLive(times: SessionTimes, now: Date, lifetime: SessionLifetime = DEFAULT_SESSION_LIFETIME): boolean {
  return now.getTime() < times.expiresAt.getTime() && now.getTime() < capOf(times.openedAt, lifetime);
}

/** When the session really ends: its expiry, or the cap if that comes first. */
export function effectiveExpiry(times: SessionTimes, lifetime: SessionLifetime = DEFAULT_SESSION_LIFETIME): Date {
  return new Date(Math.min(times.expiresAt.getTime(), capOf(times.openedAt, lifetime)));
}
