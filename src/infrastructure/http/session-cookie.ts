import { clearCookie, type HeaderSink, setCookie } from './set-cookie.js';

/**
 * How a browser session travels over HTTP. Transport, like the bearer header: the guard reads it,
 * sign-in sets it, and what the token opens is the identity module's answer.
 */
export const SESSION_COOKIE = 'pf_session';

export interface SessionCookiePolicy {
  /** The cookies never travel over plain HTTP, unless the service itself is plain-HTTP localhost. */
  readonly secure: boolean;
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Secure unless PUBLIC_URL is plain http on this machine (a browser keeps no Secure cookie from
 * http://, and development runs there). Decided from the URL the browser sees, not NODE_ENV: a
 * production service left at NODE_ENV=development still never sends a session over plain HTTP.
 */
export function sessionCookiePolicy(publicUrl: string): SessionCookiePolicy {
  const url = new URL(publicUrl);
  return { secure: !(url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)) };
}

/** The request as far as cookies are concerned: its headers. */
export interface CookieSource {
  readonly headers: { readonly cookie?: string | undefined };
}

/** One cookie's value from the Cookie header (no cookie parser needed for two cookies). */
export function readCookie(request: CookieSource, name: string): string | null {
  const header = request.headers.cookie;
  if (!header) return null;
  for (const pair of header.split(';')) {
    const separator = pair.indexOf('=');
    if (separator < 0 || pair.slice(0, separator).trim() !== name) continue;
    const value = pair.slice(separator + 1).trim();
    return value === '' ? null : value;
  }
  return null;
}

export function readSessionCookie(request: CookieSource): string | null {
  return readCookie(request, SESSION_COOKIE);
}

/** httpOnly (no script reads it), SameSite=Lax (not sent on cross-site subrequests), whole site. */
export function setSessionCookie(reply: HeaderSink, policy: SessionCookiePolicy, token: string, expiresAt: Date, now: Date): void {
  setCookie(reply, SESSION_COOKIE, token, { httpOnly: true, sameSite: 'Lax', secure: policy.secure, path: '/', maxAgeMs: Math.max(0, expiresAt.getTime() - now.getTime()) });
}

export function clearSessionCookie(reply: HeaderSink, policy: SessionCookiePolicy): void {
  clearCookie(reply, SESSION_COOKIE, { httpOnly: true, sameSite: 'Lax', secure: policy.secure, path: '/' });
}
