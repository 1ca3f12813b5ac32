import { type Kysely, sql } from 'kysely';

/** One row per stream detection ever recorded for a user; tombstoned ones stay (status TOMBSTONED) for their history. */
export interface RecurringStreamsTable {
  id: string;
  user_id: string;
  account_id: string;
  stream_type: string;
  frequency: string;
  status: string;
  average_amount: string;
  last_amount: string;
  first_date: string;
  last_date: string;
  predicted_next_date: string | null;
  /** The last day the stream is active without another payment; null once tombstoned. */
  active_until: string | null;
  transaction_ids: string[];
  merchant_name: string | null;
  description: string;
  category_id: string | null;
  updated_at: Date;
  /** The revision of the user's `recurring-` stream the row reflects. */
  revision: number;
}

export async function createRecurringTables(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE recurring_streams (
      id uuid PRIMARY KEY,
      user_id uuid NOT NULL,
      account_id uuid NOT NULL,
      stream_type text NOT NULL,
      frequency text NOT NULL,
      status text NOT NULL,
      average_amount numeric(19, 4) NOT NULL,
      last_amount numeric(19, 4) NOT NULL,
      first_date date NOT NULL,
      last_date date NOT NULL,
      predicted_next_date date,
      active_until date,
      transaction_ids text[] NOT NULL,
      merchant_name text,
      description text NOT NULL,
      category_id uuid,
      updated_at timestamptz NOT NULL,
      revision bigint NOT NULL
    )`.execute(db);
  // GET /recurring: one user's streams still active.
  await sql`CREATE INDEX recurring_streams_active ON recurring_streams (user_id, active_until) WHERE status <> 'TOMBSTONED'`.execute(db);
}
