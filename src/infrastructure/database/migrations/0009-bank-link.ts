import { type Kysely, sql } from 'kysely';

/**
 * Bank link state that is not an event. `link_item_credentials`: the service's access token for
 * each linked item, sealed (AES-256-GCM under LINK_TOKEN_KEY) because the service must hand it back
 * to the provider. `sandbox_bank_*`: the sandbox provider's own memory (what a real provider keeps
 * on its side), so a restart, a second instance or a worker sees the same bank: public tokens
 * (single use, short-lived) and items (their seed, institution, asOf and status), the tokens only
 * as SHA-256 hashes since the sandbox only compares them.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE IF NOT EXISTS link_item_credentials (
      link_item_uuid uuid PRIMARY KEY,
      user_id uuid NOT NULL,
      provider text NOT NULL,
      link_item_id text NOT NULL,
      sealed_access_token bytea NOT NULL,
      created_at timestamptz NOT NULL,
      UNIQUE (provider, link_item_id)
    )`.execute(db);
  await sql`
    CREATE TABLE IF NOT EXISTS sandbox_bank_public_tokens (
      token_hash bytea PRIMARY KEY,
      institution_id text NOT NULL,
      item_seed bigint NOT NULL,
      as_of text NOT NULL,
      created_at timestamptz NOT NULL,
      expires_at timestamptz NOT NULL,
      used_at timestamptz
    )`.execute(db);
  await sql`
    CREATE TABLE IF NOT EXISTS sandbox_bank_items (
      item_id text PRIMARY KEY,
      access_token_hash bytea NOT NULL UNIQUE,
      item_seed bigint NOT NULL,
      institution_id text NOT NULL,
      as_of text NOT NULL,
      status jsonb NOT NULL,
      created_at timestamptz NOT NULL,
      removed_at timestamptz
    )`.execute(db);
}
