import { type Kysely, sql } from 'kysely';
import { newId } from '../../core/ids.js';
import type { Database } from '../../infrastructure/database/schema.js';
import type { Principal, User } from '../../infrastructure/http/authenticator.port.js';
import { displayPrefix, generateApiKey, hashApiKey, isApiKeyFormat, type Scope } from './api-key.js';

export type { Credential, Principal, User } from '../../infrastructure/http/authenticator.port.js';

export interface ApiKeySummary {
  readonly id: string;
  readonly name: string;
  readonly prefix: string;
  readonly scopes: readonly Scope[];
  readonly createdAt: Date;
  readonly lastUsedAt: Date | null;
}

export interface IssuedApiKey {
  readonly id: string;
  readonly name: string;
  readonly key: string;
  readonly prefix: string;
  readonly scopes: readonly Scope[];
  readonly createdAt: Date;
}

export async function findUserByEmail(db: Kysely<Database>, email: string): Promise<User | null> {
  const row = await db.selectFrom('users').select(['id', 'email', 'name']).where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase())).executeTakeFirst();
  return row ?? null;
}

/** Creates the user, or returns the existing one with that email (case-insensitive). */
export async function ensureUser(db: Kysely<Database>, email: string, name: string | null = null): Promise<{ user: User; created: boolean }> {
  const existing = await findUserByEmail(db, email);
  if (existing) return { user: existing, created: false };
  const user = { id: newId(), email, name };
  const inserted = await db.insertInto('users').values({ ...user, created_at: new Date() }).onConflict((conflict) => conflict.doNothing()).executeTakeFirst();
  if (inserted.numInsertedOrUpdatedRows === 0n) return { user: (await findUserByEmail(db, email)) as User, created: false };
  return { user, created: true };
}

export async function issueApiKey(db: Kysely<Database>, userId: string, name: string, scopes: readonly Scope[], now: Date): Promise<IssuedApiKey> {
  const key = generateApiKey();
  const issued = { id: newId(), name, key, prefix: displayPrefix(key), scopes, createdAt: now };
  await db
    .insertInto('api_keys')
    .values({ id: issued.id, user_id: userId, name, prefix: issued.prefix, key_hash: hashApiKey(key), scopes: [...scopes], created_at: now })
    .execute();
  return issued;
}

export async function authenticateApiKey(db: Kysely<Database>, key: string): Promise<Principal | null> {
  if (!isApiKeyFormat(key)) return null;
  const row = await db
    .selectFrom('api_keys')
    .innerJoin('users', 'users.id', 'api_keys.user_id')
    .select(['api_keys.id as apiKeyId', 'api_keys.scopes', 'users.id', 'users.email', 'users.name'])
    .where('api_keys.key_hash', '=', hashApiKey(key))
    .where('api_keys.revoked_at', 'is', null)
    .executeTakeFirst();
  if (!row) return null;
  return { user: { id: row.id, email: row.email, name: row.name }, scopes: row.scopes as Scope[], credential: { kind: 'apiKey', apiKeyId: row.apiKeyId } };
}

/** The user's live keys, oldest first; never a secret, not even its hash. */
export async function listApiKeys(db: Kysely<Database>, userId: string): Promise<ApiKeySummary[]> {
  const rows = await db
    .selectFrom('api_keys')
    .select(['id', 'name', 'prefix', 'scopes', 'created_at', 'last_used_at'])
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((row) => ({ id: row.id, name: row.name, prefix: row.prefix, scopes: row.scopes as Scope[], createdAt: row.created_at, lastUsedAt: row.last_used_at }));
}

/**
 * Revokes one of the user's live keys; false when there is none with that id (another user's
 * key included). Migration 0015's trigger notifies every instance's API-key cache on commit.
 */
export async function revokeApiKey(db: Kysely<Database>, userId: string, apiKeyId: string, now: Date): Promise<boolean> {
  return (await revokeApiKeyInTransaction(db, userId, apiKeyId, now)) !== null;
}

/** Revokes a live key; the id of the transaction that did it (what its invalidation names), null when there was none to revoke. */
export async function revokeApiKeyInTransaction(db: Kysely<Database>, userId: string, apiKeyId: string, now: Date): Promise<string | null> {
  const row = await db
    .updateTable('api_keys')
    .set({ revoked_at: now })
    .where('id', '=', apiKeyId)
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .returning(sql<string>`pg_current_xact_id()::text`.as('xid'))
    .executeTakeFirst();
  return row?.xid ?? null;
}

export async function touchApiKey(db: Kysely<Database>, apiKeyId: string, now: Date): Promise<void> {
  await db.updateTable('api_keys').set({ last_used_at: now }).where('id', '=', apiKeyId).execute();
}
