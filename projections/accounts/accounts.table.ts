import { type Generated, type Kysely, sql } from 'kysely';

export interface AccountsTable {
  id: string;
  user_id: string;
  source: string;
  name: string;
  type: string;
  subtype: string | null;
  mask: string | null;
  currency: string | null;
  institution_name: string | null;
  current: string | null;
  credit_limit: string | null;
  user_override_credit_limit: string | null;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
  /** Rows of linked accounts reflect their link item's stream, so this is that stream's revision. */
  revision: number;
  /** Linked accounts (version 2 on): null for manual ones. */
  link_item_uuid: string | null;
  link_item_id: string | null;
  link_account_id: string | null;
  official_name: string | null;
  institution_id: string | null;
  institution_logo: string | null;
  institution_url: string | null;
  available: string | null;
  billed_products: string[] | null;
  needs_reauth: boolean;
  new_accounts_available: boolean;
  pending_disconnect_at: Date | null;
  /** A linked account's own stream (the user's credit-limit overrides): the revision its row reflects, -1 for none. */
  account_revision: number;
  /** Investment accounts of a brokerage authorization (version 4 on): null for every other account. Their `revision` is the authorization stream's. */
  brokerage_authorization_uuid: string | null;
  brokerage_authorization_id: string | null;
  brokerage_account_id: string | null;
  /** An investment account's own stream (`brokerage-account-<id>`: its holdings): the revision its row reflects, -1 for none. */
  holdings_revision: Generated<number>;
}

export async function createAccountsTable(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE accounts (
      id uuid PRIMARY KEY,
      user_id uuid NOT NULL,
      source text NOT NULL,
      name text NOT NULL,
      type text NOT NULL,
      subtype text,
      mask text,
      currency text,
      institution_name text,
      current numeric(19, 4),
      credit_limit numeric(19, 4),
      user_override_credit_limit numeric(19, 4),
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      deleted_at timestamptz,
      revision bigint NOT NULL,
      link_item_uuid uuid,
      link_item_id text,
      link_account_id text,
      official_name text,
      institution_id text,
      institution_logo text,
      institution_url text,
      available numeric(19, 4),
      billed_products text[],
      needs_reauth boolean NOT NULL DEFAULT false,
      new_accounts_available boolean NOT NULL DEFAULT false,
      pending_disconnect_at timestamptz,
      account_revision bigint NOT NULL DEFAULT -1,
      brokerage_authorization_uuid uuid,
      brokerage_authorization_id text,
      brokerage_account_id text,
      holdings_revision bigint NOT NULL DEFAULT -1
    )`.execute(db);
  await sql`CREATE INDEX accounts_by_user ON accounts (user_id, created_at) WHERE deleted_at IS NULL`.execute(db);
  await sql`CREATE INDEX accounts_by_link_item ON accounts (link_item_uuid) WHERE link_item_uuid IS NOT NULL`.execute(db);
  await sql`CREATE INDEX accounts_by_brokerage_authorization ON accounts (brokerage_authorization_uuid) WHERE brokerage_authorization_uuid IS NOT NULL`.execute(db);
}
