import { type Kysely, sql } from 'kysely';

export interface LinkItemsTable {
  /** The service's UUID for the item. */
  id: string;
  user_id: string;
  /** The provider's item id: `linkItemId` in the API. */
  link_item_id: string;
  provider: string;
  institution_id: string | null;
  institution_name: string | null;
  institution_logo: string | null;
  institution_url: string | null;
  available_products: string[];
  billed_products: string[];
  needs_reauth: boolean;
  error: unknown;
  new_accounts_available: boolean;
  pending_disconnect_at: Date | null;
  created_at: Date;
  updated_at: Date;
  disconnected_at: Date | null;
  revision: number;
}

export async function createLinkItemsTable(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE link_items (
      id uuid PRIMARY KEY,
      user_id uuid NOT NULL,
      link_item_id text NOT NULL,
      provider text NOT NULL,
      institution_id text,
      institution_name text,
      institution_logo text,
      institution_url text,
      available_products text[] NOT NULL,
      billed_products text[] NOT NULL,
      needs_reauth boolean NOT NULL,
      error jsonb,
      new_accounts_available boolean NOT NULL,
      pending_disconnect_at timestamptz,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      disconnected_at timestamptz,
      revision bigint NOT NULL
    )`.execute(db);
  await sql`CREATE INDEX link_items_by_user ON link_items (user_id, created_at) WHERE disconnected_at IS NULL`.execute(db);
}
