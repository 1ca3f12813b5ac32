import { type Kysely, sql } from 'kysely';

/**
 * What the sandbox provider needs to reconnect an item (a provider's "update mode"): the link
 * tokens it issued (`sandbox_bank_link_tokens`, hashed like its other tokens, with the item a token
 * reconnects or null for a new link, four hours), the item a public token reconnects
 * (`sandbox_bank_public_tokens.reconnect_item_id`, null for a new item), and on each item whether
 * the bank has opened an account the item does not share yet (`new_accounts_available`, set by
 * NEW_ACCOUNTS_AVAILABLE) and how many such accounts a reconnect has added to it (`extra_accounts`).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE IF NOT EXISTS sandbox_bank_link_tokens (
      token_hash bytea PRIMARY KEY,
      reconnect_item_id text,
      created_at timestamptz NOT NULL,
      expires_at timestamptz NOT NULL
    )`.execute(db);
  await sql`ALTER TABLE sandbox_bank_public_tokens ADD COLUMN IF NOT EXISTS reconnect_item_id text`.execute(db);
  await sql`
    ALTER TABLE sandbox_bank_items
      ADD COLUMN IF NOT EXISTS new_accounts_available boolean NOT NULL DEFAULT false,
      ADD COLUMN IF NOT EXISTS extra_accounts integer NOT NULL DEFAULT 0`.execute(db);
}
