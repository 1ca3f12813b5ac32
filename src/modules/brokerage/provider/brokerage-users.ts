import { sql, type Kysely } from 'kysely';
import type { Database } from '../../../infrastructure/database/schema.js';
import type { BrokerageUser } from '../brokerage-link.port.js';
import type { BrokerageLink } from '../brokerage-link.wiring.js';

/**
 * The service's registration of a user with the brokerage-link provider. The provider's user
 * secret must be handed back on every call, so it is kept sealed (bound to the provider and the
 * user: a sealed secret copied onto another row does not open), never in an event or in clear.
 * The provider user id is the service's user id.
 */
const sealedFor = (link: BrokerageLink) => `brokerage:${link.providerName}`;

/** The user as the provider knows them, or null if the service never registered them with the configured provider. */
export async function registeredBrokerageUser(db: Kysely<Database>, link: BrokerageLink, userId: string): Promise<BrokerageUser | null> {
  const row = await db.selectFrom('brokerage_link_users').selectAll().where('user_id', '=', userId).where('provider', '=', link.providerName).executeTakeFirst();
  if (!row) return null;
  return { userId: row.provider_user_id, userSecret: link.sealer.open(row.sealed_user_secret, sealedFor(link), row.provider_user_id) };
}

/**
 * The user as the provider knows them, registering them first if need be. Registration is
 * serialised per user (an advisory lock held while it runs), so two first connects at once do
 * not each register and keep a secret the other one replaced.
 */
export async function brokerageUserFor(db: Kysely<Database>, link: BrokerageLink, userId: string, now: Date): Promise<BrokerageUser> {
  const provider = link.provider;
  if (!provider) throw new Error('No brokerage-link provider is configured');
  const known = await registeredBrokerageUser(db, link, userId);
  if (known) return known;
  return db.transaction().execute(async (trx) => {
    await sql`SELECT pg_advisory_xact_lock(hashtext(${`brokerage-link-user:${userId}`}))`.execute(trx);
    const registered = await registeredBrokerageUser(trx, link, userId);
    if (registered) return registered;
    const user = await provider.registerUser(userId);
    await trx
      .insertInto('brokerage_link_users')
      .values({ user_id: userId, provider: link.providerName, provider_user_id: user.userId, sealed_user_secret: link.sealer.seal(user.userSecret, sealedFor(link), user.userId), created_at: now })
      // A registration with another provider before: this one's secret replaces it.
      .onConflict((conflict) => conflict.column('user_id').doUpdateSet((row) => ({ provider: row.ref('excluded.provider'), provider_user_id: row.ref('excluded.provider_user_id'), sealed_user_secret: row.ref('excluded.sealed_user_secret') })))
      .execute();
    return user;
  });
}
