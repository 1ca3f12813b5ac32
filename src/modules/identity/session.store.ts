import type { Kysely } from 'kysely';
import type { Database } from '../../infrastructure/database/schema.js';
import type { User } from './identity.store.js';
import {
  DEFAULT_SESSION_LIFETIME,
  effectiveExpiry,
  generateSessionToken,
  hashSessionToken,
  isSessionLive,
  isSessionTokenFormat,
  newSessionTimes,
  refreshedSessionTimes,
  type SessionLifetime,
} from './session.js';

export interface OpenedSession {
  /** The cookie value; shown to the browser once, stored only as its hash. */
  readonly token: string;
  readonly openedAt: Date;
  readonly expiresAt: Date;
}

export interface LiveSession {
  readonly user: User;
  readonly expiresAt: Date;
  /** Set when this request extended the session: the cookie must be sent again. */
  readonly refreshed: boolean;
}

export async function openSession(db: Kysely<Database>, userId: string, now: Date, lifetime: SessionLifetime = DEFAULT_SESSION_LIFETIME): Promise<OpenedSession> {
  const token = generateSessionToken();
  const times = newSessionTimes(now, lifetime);
  // Expired sessions are of no use to anyone: each sign-in sweeps them away (the expiry is indexed).
  await db.deleteFrom('sessions').where('expires_at', '<=', now).execute();
  await db
    .insertInto('sessions')
    .values({ id_hash: hashSessionToken(token), user_id: userId, created_at: now, refreshed_at: times.refreshedAt, expires_at: times.expiresAt })
    .execute();
  return { token, openedAt: now, expiresAt: times.expiresAt };
}

/** The session's user when it is live, extended (up to its cap) when its last refresh is more than a day old. */
export async function resumeSession(db: Kysely<Database>, token: string, now: Date, lifetime: SessionLifetime = DEFAULT_SESSION_LIFETIME): Promise<LiveSession | null> {
  if (!isSessionTokenFormat(token)) return null;
  const idHash = hashSessionToken(token);
  const row = await db
    .selectFrom('sessions')
    .innerJoin('users', 'users.id', 'sessions.user_id')
    .select(['users.id', 'users.email', 'users.name', 'sessions.created_at', 'sessions.refreshed_at', 'sessions.expires_at'])
    .where('sessions.id_hash', '=', idHash)
    .executeTakeFirst();
  if (!row) return null;
  const current = { openedAt: row.created_at, refreshedAt: row.refreshed_at, expiresAt: row.expires_at };
  if (!isSessionLive(current, now, lifetime)) return null;
  const user = { id: row.id, email: row.email, name: row.name };
  const next = refreshedSessionTimes(current, now, lifetime);
  if (!next) return { user, expiresAt: effectiveExpiry(current, lifetime), refreshed: false };
  // Only the request that moves refreshed_at on re-sends the cookie; a concurrent one sees 0 rows.
  const updated = await db
    .updateTable('sessions')
    .set({ refreshed_at: next.refreshedAt, expires_at: next.expiresAt })
    .where('id_hash', '=', idHash)
    .where('refreshed_at', '=', current.refreshedAt)
    .executeTakeFirst();
  return { user, expiresAt: next.expiresAt, refreshed: updated.numUpdatedRows > 0n };
}

export async function closeSession(db: Kysely<Database>, token: string): Promise<void> {
  if (!isSessionTokenFormat(token)) return;
  await db.deleteFrom('sessions').where('id_hash', '=', hashSessionToken(token)).execute();
}
