import { type Kysely, sql } from 'kysely';
import { newId } from '../../core/ids.js';
import type { Database } from '../../infrastructure/database/schema.js';
import { findUserByEmail, type User } from './identity.store.js';
import type { ProviderProfile } from './sign-in/provider-profile.js';

/**
 * The user a provider's subject signs in as. A subject seen before is that user (its email and
 * name are refreshed). A new subject with a *verified* email joins the user who already has that
 * address (for example one the operator created on the command line); otherwise it becomes a new
 * user, who gets the address only if it is verified and free, so that an unverified claim can
 * never later pull someone else's sign-in into this account.
 */
export async function signInUser(db: Kysely<Database>, provider: string, profile: ProviderProfile, now: Date): Promise<User> {
  return db.transaction().execute(async (trx) => {
    // Two callbacks for the same new subject at once must not make two users.
    await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`${provider}\n${profile.subject}`}, 0))`.execute(trx);
    const identity = { email: profile.email, email_verified: profile.emailVerified, name: profile.name, updated_at: now };
    const known = await trx.selectFrom('provider_identities').select('user_id').where('provider', '=', provider).where('subject', '=', profile.subject).executeTakeFirst();
    if (known) {
      await trx.updateTable('provider_identities').set(identity).where('provider', '=', provider).where('subject', '=', profile.subject).execute();
      return trx.selectFrom('users').select(['id', 'email', 'name']).where('id', '=', known.user_id).executeTakeFirstOrThrow();
    }
    const verifiedEmail = profile.emailVerified ? profile.email : null;
    const user = (verifiedEmail ? await findUserByEmail(trx, verifiedEmail) : null) ?? (await createUser(trx, verifiedEmail, profile.name, now));
    await trx.insertInto('provider_identities').values({ provider, subject: profile.subject, user_id: user.id, created_at: now, ...identity }).execute();
    return user;
  });
}

async function createUser(db: Kysely<Database>, email: string | null, name: string | null, now: Date): Promise<User> {
  const user = { id: newId(), email, name };
  const inserted = await db.insertInto('users').values({ ...user, created_at: now }).onConflict((conflict) => conflict.doNothing()).executeTakeFirst();
  if ((inserted.numInsertedOrUpdatedRows ?? 0n) > 0n) return user;
  // The address was taken between the lookup and the insert: the user is created without it.
  await db.insertInto('users').values({ ...user, email: null, created_at: now }).execute();
  return { ...user, email: null };
}
