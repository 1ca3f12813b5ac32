import { createHash, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../../infrastructure/database/schema.js';
import type { BrokerageLink } from '../brokerage-link.wiring.js';

/**
 * A real provider's portal (SnapTrade's) is its own page: when the user is done, it sends the
 * browser to the return URL the service gave it, and says nothing of what was connected. The
 * service therefore puts a token of its own in that URL, naming whose portal it was and what it
 * reconnects: random, single use, an hour to finish the portal in, kept only as its SHA-256
 * (brokerage_portal_returns, migration 0036). The token is the return's only credential, as the
 * sandbox portal's session is.
 */
export const PORTAL_RETURN_SESSION_TTL_MS = 60 * 60_000;

const hashOf = (token: string): Buffer => createHash('sha256').update(token).digest();

/** The return URL of a new portal of the user's: `<PUBLIC_URL>/v1/brokerage/portal/return?session=<token>`. */
export async function openPortalReturnSession(db: Kysely<Database>, link: BrokerageLink, userId: string, reconnectAuthorizationId: string | undefined, now: Date): Promise<string> {
  const token = randomBytes(24).toString('base64url');
  await db
    .insertInto('brokerage_portal_returns')
    .values({
      token_hash: hashOf(token),
      user_id: userId,
      provider: link.providerName,
      reconnect_authorization_id: reconnectAuthorizationId ?? null,
      created_at: now,
      expires_at: new Date(now.getTime() + PORTAL_RETURN_SESSION_TTL_MS),
      used_at: null,
    })
    .execute();
  const url = new URL(link.portalReturnUrl);
  url.searchParams.set('session', token);
  return url.toString();
}

/** Spends the token (one UPDATE checks and spends it: two returns with it cannot both win); null when unknown, used, expired or another provider's. */
export async function spendPortalReturnSession(db: Kysely<Database>, link: BrokerageLink, token: string, now: Date): Promise<{ userId: string; reconnectAuthorizationId: string | null } | null> {
  const spent = await db
    .updateTable('brokerage_portal_returns')
    .set({ used_at: now })
    .where('token_hash', '=', hashOf(token))
    .where('provider', '=', link.providerName)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .returning(['user_id', 'reconnect_authorization_id'])
    .executeTakeFirst();
  return spent ? { userId: spent.user_id, reconnectAuthorizationId: spent.reconnect_authorization_id } : null;
}
