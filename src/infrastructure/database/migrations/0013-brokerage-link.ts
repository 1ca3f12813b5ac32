import { type Kysely, sql } from 'kysely';

/**
 * Brokerage link state that is not an event, on both sides of the provider port.
 *
 * The service's side: `brokerage_link_users`, the user's registration with the provider and its
 * user secret, sealed (AES-256-GCM under LINK_TOKEN_KEY, bound to the provider and user) because
 * the service must hand it back on every call; `brokerage_link_authorizations`, the authorizations
 * the service has recorded, so the daily sync can page through them without a read model.
 *
 * The sandbox provider's own memory (what a real provider keeps on its side), so a restart, a
 * second instance or a worker sees the same brokerage: registered users (the secret only as a
 * SHA-256 hash), authorizations (seed, brokerage, the day opened, status) — accounts, activities,
 * positions and values are derived from those — and portal sessions (single use, five minutes,
 * hashed).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE IF NOT EXISTS brokerage_link_users (
      user_id uuid PRIMARY KEY,
      provider text NOT NULL,
      provider_user_id text NOT NULL,
      sealed_user_secret bytea NOT NULL,
      created_at timestamptz NOT NULL
    )`.execute(db);
  await sql`
    CREATE TABLE IF NOT EXISTS brokerage_link_authorizations (
      authorization_uuid uuid PRIMARY KEY,
      user_id uuid NOT NULL,
      provider text NOT NULL,
      brokerage_authorization_id text NOT NULL,
      created_at timestamptz NOT NULL,
      UNIQUE (provider, brokerage_authorization_id)
    )`.execute(db);
  await sql`
    CREATE TABLE IF NOT EXISTS sandbox_brokerage_users (
      user_id text PRIMARY KEY,
      secret_hash bytea NOT NULL,
      created_at timestamptz NOT NULL
    )`.execute(db);
  await sql`
    CREATE TABLE IF NOT EXISTS sandbox_brokerage_authorizations (
      authorization_id text PRIMARY KEY,
      user_id text NOT NULL,
      brokerage_id text NOT NULL,
      seed bigint NOT NULL,
      opened_on text NOT NULL,
      status text NOT NULL,
      disabled_reason text,
      created_at timestamptz NOT NULL,
      removed_at timestamptz
    )`.execute(db);
  await sql`CREATE INDEX IF NOT EXISTS sandbox_brokerage_authorizations_by_user ON sandbox_brokerage_authorizations (user_id)`.execute(db);
  await sql`
    CREATE TABLE IF NOT EXISTS sandbox_brokerage_portal_sessions (
      token_hash bytea PRIMARY KEY,
      user_id text NOT NULL,
      reconnect_authorization_id text,
      created_at timestamptz NOT NULL,
      expires_at timestamptz NOT NULL,
      used_at timestamptz,
      authorization_id text
    )`.execute(db);
}
