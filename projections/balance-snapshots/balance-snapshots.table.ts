import { type Kysely, sql } from 'kysely';

export interface BalanceSnapshotsTable {
  id: string;
  user_id: string;
  account_id: string;
  date: string;
  current_balance: string;
  available_balance: string;
  credit_limit: string | null;
  taken_at: Date;
}

export async function createBalanceSnapshotsTable(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE balance_snapshots (
      id uuid PRIMARY KEY,
      user_id uuid NOT NULL,
      account_id uuid NOT NULL,
      date date NOT NULL,
      current_balance numeric(19, 4) NOT NULL,
      available_balance numeric(19, 4) NOT NULL,
      credit_limit numeric(19, 4),
      taken_at timestamptz NOT NULL,
      UNIQUE (account_id, date)
    )`.execute(db);
  await sql`CREATE INDEX balance_snapshots_by_user ON balance_snapshots (user_id, date, account_id)`.execute(db);
}
