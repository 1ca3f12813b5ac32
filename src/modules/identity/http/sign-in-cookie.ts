import type { Request, Response } from 'express';
import { readCookie, type SessionCookiePolicy } from '../../../infrastructure/http/session-cookie.js';
import { SIGN_IN_FLOW_LIFETIME_MS } from '../sign-in/sign-in-flow.store.js';

/** Binds a sign-in to the browser that began it; sent only to the sign-in operations. */
export const SIGN_IN_COOKIE = 'pf_sign_in';
const SIGN_IN_COOKIE_PATH = '/api/auth';

export function readSignInCookie(request: Pick<Request, 'header'>): string | null {
  return readCookie(request, SIGN_IN_COOKIE);
}

/**
 * Lives as long as a sign-in flow. SameSite=Lax still sends it on the provider's top-level
 * redirect back to the callback, and a page elsewhere cannot set or read it: a callback URL
 * from someone else's sign-in finds no matching cookie in the victim's browser.
 */
export function setSignInCookie(response: Response, policy: SessionCookiePolicy, binding: string): void {
  response.cookie(SIGN_IN_COOKIE, binding, { httpOnly: true, sameSite: 'lax', secure: policy.secure, path: SIGN_IN_COOKIE_PATH, maxAge: SIGN_IN_FLOW_LIFETIME_MS });
}

export function clearSignInCookie(response: Response, policy: SessionCookiePolicy): void {
  response.clearCookie(SIGN_IN_COOKIE, { httpOnly: true, sameSite: 'lax', secure: policy.secure, path: SIGN_IN_COOKIE_PATH });
}
