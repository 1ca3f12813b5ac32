import type { Request, Response } from 'express';

export const SESSION_COOKIE = 'pf_session';

export interface SessionCookiePolicy {
  /** Secure outside development: the cookie then never travels over plain HTTP. */
  readonly secure: boolean;
}

export function sessionCookiePolicy(nodeEnv: string): SessionCookiePolicy {
  return { secure: nodeEnv !== 'development' };
}

/** The pf_session value from the Cookie header (no cookie-parser needed for one cookie). */
export function readSessionCookie(request: Pick<Request, 'header'>): string | null {
  const header = request.header('cookie');
  if (!header) return null;
  for (const pair of header.split(';')) {
    const separator = pair.indexOf('=');
    if (separator < 0 || pair.slice(0, separator).trim() !== SESSION_COOKIE) continue;
    const value = pair.slice(separator + 1).trim();
    return value === '' ? null : value;
  }
  return null;
}

/** httpOnly (no script reads it), SameSite=Lax (not sent on cross-site subrequests), whole site. */
export function setSessionCookie(response: Response, policy: SessionCookiePolicy, token: string, expiresAt: Date, now: Date): void {
  response.cookie(SESSION_COOKIE, token, {
    httpOnly: true,
    sameSite: 'lax',
    secure: policy.secure,
    path: '/',
    maxAge: Math.max(0, expiresAt.getTime() - now.getTime()),
  });
}

export function clearSessionCookie(response: Response, policy: SessionCookiePolicy): void {
  response.clearCookie(SESSION_COOKIE, { httpOnly: true, sameSite: 'lax', secure: policy.secure, path: '/' });
}
