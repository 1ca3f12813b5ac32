import { type Kysely, sql } from 'kysely';
import { newId } from '../../core/ids.js';
import type { Database } from '../../infrastructure/database/schema.js';
import { findUserByEmail, type User } from './identity.store.js';
import type { ProviderProfile } from './sign-in/provider-profile.js';

export interface EmailTrust {
  /** The provider is configured as an authority on its users' addresses (OAUTH_<NAME>_TRUST_EMAIL). */
  readonly trustEmail: boolean;
}

/**
 * The user a provider's subject signs in as. A subject seen before is that user (the identity's
 * email and name are refreshed). A new subject joins the user who already has its address only
 * when the address is *verified* and the provider is *trusted* for email; otherwise it becomes a
 * new user, who gets the address only on those same terms and only if it is free. Anything
 * weaker would let whoever controls an account at a lax provider claim a victim's address, and
 * either walk into the victim's data or wait for the victim to sign in to theirs. An address on
 * a user therefore always came from the operator or from a trusted provider.
 */
export async function signInUser(db: Kysely<Database>, provider: string, profile: ProviderProfile, now: Date, trust: EmailTrust): Promise<User> {
  return db.transaction().execute(async (trx) => {
    // Two callbacks for the same new subject at once must not make two users.
    await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`${provider}\n${profile.subject}`}, 0))`.execute(trx);
    const identity = { email: profile.email, email_verified: profile.emailVerified, name: profile.name, updated_at: now };
    const known = await trx.selectFrom('provider_identities').select('user_id').where('provider', '=', provider).where('subject', '=', profile.subject).executeTakeFirst();
    if (known) {
      await trx.updateTable('provider_identities').set(identity).where('provider', '=', provider).where('subject', '=', profile.subject).execute();
      return trx.selectFrom('users').select(['id', 'email', 'name']).where('id', '=', known.user_id).executeTakeFirstOrThrow();
    }
    const trustedEmail = trust.trustEmail && profile.emailVerified ? profile.email : null;
    const user = (trustedEmail ? await findUserByEmail(trx, trustedEmail) : null) ?? (await createUser(trx, trustedEmail, profile.name, now));
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
