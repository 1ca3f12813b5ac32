import { type Kysely, sql } from 'kysely';

/**
 * One row per field per change (creation and departure included). Rows are numbered from the
 * events — the stream revision, then the field's place in the event — so a rebuild writes the
 * same rows, order included.
 */
export interface TransactionActivityTable {
  id: string;
  user_id: string;
  transaction_id: string;
  revision: number;
  ordinal: number;
  kind: string;
  actor: string;
  created_at: Date;
  field: string;
  old_value: unknown;
  new_value: unknown;
  request_id: string;
  correlation_id: string;
  /** The rule whose change it is (decision 0042); null for every other change. */
  rule_id: string | null;
}

export async function createTransactionActivityTable(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE transaction_activity (
      id text PRIMARY KEY,
      user_id uuid NOT NULL,
      transaction_id uuid NOT NULL,
      revision bigint NOT NULL,
      ordinal int NOT NULL,
      kind text NOT NULL,
      actor text NOT NULL,
      created_at timestamptz NOT NULL,
      field text NOT NULL,
      old_value jsonb,
      new_value jsonb,
      request_id text NOT NULL,
      correlation_id text NOT NULL,
      rule_id text
    )`.execute(db);
  await sql`CREATE UNIQUE INDEX transaction_activity_in_order ON transaction_activity (transaction_id, revision, ordinal)`.execute(db);
}
