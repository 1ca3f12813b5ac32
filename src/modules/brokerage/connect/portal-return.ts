import type { Kysely } from 'kysely';
import type { Database } from '../../../infrastructure/database/schema.js';
import type { AccessTokenSealer } from '../../link/provider/access-token-sealer.js';

/**
 * The return page may name the accounts a connection brought, but only to the browser that went
 * through the portal: the authorization id in its URL is no credential (it is in the address bar,
 * in the history, in a referer). The portal's redirect therefore sets this short-lived, httpOnly
 * cookie, sealed (AES-256-GCM under the link-token key) and bound to the authorization it names;
 * without it, or with one of another authorization, the page shows no account.
 */
export const PORTAL_RETURN_COOKIE = 'pf_portal_return';
export const PORTAL_RETURN_LIFETIME_MS = 10 * 60_000;

const SEALED_FOR = 'brokerage-portal-return';

interface PortalReturn {
  readonly userId: string;
  readonly authorizationUuid: string;
  readonly expiresAt: number;
}

export function sealPortalReturn(sealer: AccessTokenSealer, brokerageAuthorizationId: string, userId: string, authorizationUuid: string, now: Date): string {
  const contents: PortalReturn = { userId, authorizationUuid, expiresAt: now.getTime() + PORTAL_RETURN_LIFETIME_MS };
  return sealer.seal(JSON.stringify(contents), SEALED_FOR, brokerageAuthorizationId).toString('base64url');
}

/** What the cookie says of `brokerageAuthorizationId`, or null: absent, forged, of another authorization, or expired. */
export function openPortalReturn(sealer: AccessTokenSealer, cookie: string | null, brokerageAuthorizationId: string, now: Date): PortalReturn | null {
  if (!cookie || cookie.length > 1000) return null;
  try {
    const contents = JSON.parse(sealer.open(Buffer.from(cookie, 'base64url'), SEALED_FOR, brokerageAuthorizationId)) as PortalReturn;
    return typeof contents.userId === 'string' && typeof contents.authorizationUuid === 'string' && contents.expiresAt > now.getTime() ? contents : null;
  } catch {
    return null;
  }
}

/** The names of the accounts the connection brought that are still listed, oldest first. */
export async function connectedAccountNames(db: Kysely<Database>, opened: PortalReturn): Promise<string[]> {
  const rows = await db
    .selectFrom('accounts')
    .select('name')
    .where('user_id', '=', opened.userId)
    .where('brokerage_authorization_uuid', '=', opened.authorizationUuid)
    .where('deleted_at', 'is', null)
    .orderBy('created_at')
    .orderBy('name')
    .execute();
  return rows.map((row) => row.name);
}
