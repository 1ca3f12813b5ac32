import { type Kysely, sql } from 'kysely';

/**
 * The `expired-tokens-prune` job deletes the sandboxes' expired link tokens, public tokens and
 * portal sessions a batch at a time: each table gets an index on its expiry, so a batch reads only
 * expired rows (`bank_link_webhooks_received` has one on `received_at` since migration 0010).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX IF NOT EXISTS sandbox_bank_link_tokens_expires_at ON sandbox_bank_link_tokens (expires_at)`.execute(db);
  await sql`CREATE INDEX IF NOT EXISTS sandbox_bank_public_tokens_expires_at ON sandbox_bank_public_tokens (expires_at)`.execute(db);
  await sql`CREATE INDEX IF NOT EXISTS sandbox_brokerage_portal_sessions_expires_at ON sandbox_brokerage_portal_sessions (expires_at)`.execute(db);
}
