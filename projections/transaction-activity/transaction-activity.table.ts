import { type Generated, type Kysely, sql } from 'kysely';

export interface TransactionActivityTable {
  id: string;
  seq: Generated<number>;
  user_id: string;
  transaction_id: string;
  actor: string;
  created_at: Date;
  field: string;
  old_value: unknown;
  new_value: unknown;
}

export async function createTransactionActivityTable(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE transaction_activity (
      id text PRIMARY KEY,
      seq bigint GENERATED ALWAYS AS IDENTITY,
      user_id uuid NOT NULL,
      transaction_id uuid NOT NULL,
      actor text NOT NULL,
      created_at timestamptz NOT NULL,
      field text NOT NULL,
      old_value jsonb,
      new_value jsonb
    )`.execute(db);
  await sql`CREATE INDEX transaction_activity_by_transaction ON transaction_activity (transaction_id, seq)`.execute(db);
}
