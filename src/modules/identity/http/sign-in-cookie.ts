import { type CookieSource, readCookie, type SessionCookiePolicy } from '../../../infrastructure/http/session-cookie.js';
import { clearCookie, type HeaderSink, setCookie } from '../../../infrastructure/http/set-cookie.js';
import { SIGN_IN_FLOW_LIFETIME_MS } from '../sign-in/sign-in-flow.store.js';

/** Binds a sign-in to the browser that began it; sent only to the sign-in operations. */
export const SIGN_IN_COOKIE = 'pf_sign_in';
const SIGN_IN_COOKIE_PATH = '/api/auth';

export function readSignInCookie(request: CookieSource): string | null {
  return readCookie(request, SIGN_IN_COOKIE);
}

/**
 * Lives as long as a sign-in flow. SameSite=Lax still sends it on the provider's top-level
 * redirect back to the callback, and a page elsewhere cannot set or read it: a callback URL
 * from someone else's sign-in finds no matching cookie in the victim's browser.
 */
export function setSignInCookie(reply: HeaderSink, policy: SessionCookiePolicy, binding: string): void {
  setCookie(reply, SIGN_IN_COOKIE, binding, { httpOnly: true, sameSite: 'Lax', secure: policy.secure, path: SIGN_IN_COOKIE_PATH, maxAgeMs: SIGN_IN_FLOW_LIFETIME_MS });
}

export function clearSignInCookie(reply: HeaderSink, policy: SessionCookiePolicy): void {
  clearCookie(reply, SIGN_IN_COOKIE, { httpOnly: true, sameSite: 'Lax', secure: policy.secure, path: SIGN_IN_COOKIE_PATH });
}
