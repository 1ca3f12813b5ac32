import { type Kysely, sql } from 'kysely';

/**
 * The sandbox bank's link and public tokens belong to the user they were issued to (a provider's
 * `client_user_id`): another user who presents one is refused before anything changes. Tokens
 * issued before this migration have no owner and are refused to everyone; they lived 4 hours
 * (link) and 30 minutes (public) at most, so the link flow is simply run again.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE sandbox_bank_link_tokens ADD COLUMN IF NOT EXISTS user_id text`.execute(db);
  await sql`ALTER TABLE sandbox_bank_public_tokens ADD COLUMN IF NOT EXISTS user_id text`.execute(db);
}
