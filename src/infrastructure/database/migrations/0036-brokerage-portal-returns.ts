import { type Kysely, sql } from 'kysely';

/**
 * A real brokerage provider's portal (SnapTrade's) sends the browser back to the service when the
 * user is done: the return URL carries one of these single-use tokens, kept only as its SHA-256,
 * naming whose portal it was (decision 0046). Pruned once expired.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE IF NOT EXISTS brokerage_portal_returns (
      token_hash bytea PRIMARY KEY,
      user_id uuid NOT NULL,
      provider text NOT NULL,
      reconnect_authorization_id text,
      created_at timestamptz NOT NULL,
      expires_at timestamptz NOT NULL,
      used_at timestamptz
    )`.execute(db);
  await sql`CREATE INDEX IF NOT EXISTS brokerage_portal_returns_expiry ON brokerage_portal_returns (expires_at)`.execute(db);
}
