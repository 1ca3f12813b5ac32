import type { FastifyReply } from 'fastify';
import type { AppConfig } from '../../../config/config.js';
import { sessionCookiePolicy } from '../../../infrastructure/http/session-cookie.js';
import { setCookie } from '../../../infrastructure/http/set-cookie.js';
import type { PortalReturn } from '../connect/brokerage-connect.flows.js';
import { PORTAL_RETURN_COOKIE, PORTAL_RETURN_LIFETIME_MS } from '../connect/portal-return.js';

/**
 * The end of a portal: 302 to the return URL. The token that brought the browser here was in this
 * URL, so the answer is neither cached nor referred on. The service's own return page (the
 * default) may name the connected accounts, to this browser only: the sealed cookie, on its path.
 */
export async function redirectToPortalReturn(response: FastifyReply, config: AppConfig, { returnTo, portalReturn }: PortalReturn): Promise<void> {
  response.header('Cache-Control', 'no-store').header('Referrer-Policy', 'no-referrer');
  const returnUrl = new URL(returnTo);
  if (portalReturn !== null && returnUrl.origin === new URL(config.publicUrl).origin) {
    setCookie(response, PORTAL_RETURN_COOKIE, portalReturn, {
      httpOnly: true,
      sameSite: 'Lax',
      secure: sessionCookiePolicy(config.publicUrl).secure,
      path: returnUrl.pathname,
      maxAgeMs: PORTAL_RETURN_LIFETIME_MS,
    });
  }
  await response.code(302).header('Location', returnTo).send();
}
