import { type Kysely, sql } from 'kysely';

/**
 * Stands for "no category" in the aggregate tables' keys (a primary key column cannot be null).
 * Never a real category: ids are random (v4) or name-based (v5) UUIDs, and this is the nil UUID.
 */
export const UNCATEGORIZED = '00000000-0000-0000-0000-000000000000';

/** What each live transaction adds to the aggregates now, so an edit or a removal can take it back. */
export interface SpendingTransactionsTable {
  id: string;
  user_id: string;
  account_id: string;
  category_id: string | null;
  date: string;
  amount: string;
  pending: boolean;
  /** One side of a transfer: counts nowhere. */
  paired: boolean;
  /** A split's parts `[{categoryId, amount}]`, counted each under its category; null when not split. */
  parts: { categoryId: string | null; amount: string }[] | null;
  /** The revision of the transaction's stream that last changed the row (edits that move no money are skipped). */
  revision: number;
}

/**
 * Posted (non-pending) money per user × account × category × day (`spending_daily`) and per
 * calendar month (`spending_monthly`, `day` is the month's first day): `outflow` Σ of −amount over
 * debits, `inflow` Σ of amount over credits, `transactions` how many; a row whose count drops to
 * 0 is deleted. Every category is kept: which ones count as spending is decided when read.
 */
export interface SpendingAggregateTable {
  user_id: string;
  day: string;
  account_id: string;
  category_id: string;
  outflow: string;
  inflow: string;
  transactions: number;
}

export const AGGREGATE_TABLES = ['spending_daily', 'spending_monthly'] as const;

export async function createSpendingTables(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE spending_transactions (
      id uuid PRIMARY KEY,
      user_id uuid NOT NULL,
      account_id uuid NOT NULL,
      category_id uuid,
      date date NOT NULL,
      amount numeric(19, 4) NOT NULL,
      pending boolean NOT NULL,
      paired boolean NOT NULL DEFAULT false,
      parts jsonb,
      revision bigint NOT NULL
    )`.execute(db);
  await sql`CREATE INDEX spending_transactions_by_account ON spending_transactions (account_id)`.execute(db);
  for (const table of AGGREGATE_TABLES) {
    // The key leads with (user_id, day): a window of one user's days is one index range. Rows are
    // updated in place by every posted transaction: room on each page keeps those updates HOT (no
    // new index entries), and vacuum runs after 2 % of the rows changed, not 20 %, so reads do not
    // wade through dead versions (a bulk sync left 18,000 dead beside 5,000 live monthly rows).
    await sql`
      CREATE TABLE ${sql.table(table)} (
        user_id uuid NOT NULL,
        day date NOT NULL,
        account_id uuid NOT NULL,
        category_id uuid NOT NULL,
        outflow numeric(19, 4) NOT NULL,
        inflow numeric(19, 4) NOT NULL,
        transactions integer NOT NULL,
        PRIMARY KEY (user_id, day, account_id, category_id)
      ) WITH (fillfactor = 70, autovacuum_vacuum_scale_factor = 0.02, autovacuum_analyze_scale_factor = 0.02)`.execute(db);
    await sql`CREATE INDEX ${sql.raw(`${table}_by_account`)} ON ${sql.table(table)} (account_id)`.execute(db);
  }
}
