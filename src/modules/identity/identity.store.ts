import type { Kysely } from 'kysely';
import { newId } from '../../core/ids.js';
import type { Database } from '../../infrastructure/database/schema.js';
import { displayPrefix, generateApiKey, hashApiKey, isApiKeyFormat, type Scope } from './api-key.js';

export interface User {
  readonly id: string;
  readonly email: string;
  readonly name: string | null;
}

export interface Principal {
  readonly user: User;
  readonly apiKeyId: string;
  readonly scopes: readonly Scope[];
}

export interface IssuedApiKey {
  readonly id: string;
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
  const issued = { id: newId(), key, prefix: displayPrefix(key), scopes, createdAt: now };
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
  return { user: { id: row.id, email: row.email, name: row.name }, apiKeyId: row.apiKeyId, scopes: row.scopes as Scope[] };
}

export async function touchApiKey(db: Kysely<Database>, apiKeyId: string, now: Date): Promise<void> {
  await db.updateTable('api_keys').set({ last_used_at: now }).where('id', '=', apiKeyId).execute();
}
