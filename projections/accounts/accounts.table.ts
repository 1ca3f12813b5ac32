import { type Kysely, sql } from 'kysely';

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
  revision: number;
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
      revision bigint NOT NULL
    )`.execute(db);
  await sql`CREATE INDEX accounts_by_user ON accounts (user_id, created_at) WHERE deleted_at IS NULL`.execute(db);
}
