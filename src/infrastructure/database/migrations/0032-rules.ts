import { type Kysely, sql } from 'kysely';

/**
 * Rules (decision 0042): a user's configuration, not events; and the applications of one rule to
 * the user's existing transactions, each a job whose progress (the last transaction id done and
 * its counts) is kept here so a stopped run resumes where it got to.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE IF NOT EXISTS rules (
      id uuid PRIMARY KEY,
      user_id uuid NOT NULL,
      name text NOT NULL,
      conditions jsonb NOT NULL,
      match text NOT NULL CHECK (match IN ('all', 'any')),
      actions jsonb NOT NULL,
      "order" integer NOT NULL,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    )`.execute(db);
  await sql`CREATE INDEX IF NOT EXISTS rules_user_order ON rules (user_id, "order", created_at)`.execute(db);
  await sql`
    CREATE TABLE IF NOT EXISTS rule_applications (
      id uuid PRIMARY KEY,
      user_id uuid NOT NULL,
      rule_id uuid NOT NULL,
      status text NOT NULL CHECK (status IN ('queued', 'running', 'completed', 'failed')),
      matched integer NOT NULL DEFAULT 0,
      changed integer NOT NULL DEFAULT 0,
      after_transaction_id uuid,
      error text,
      correlation_id text NOT NULL,
      created_at timestamptz NOT NULL,
      completed_at timestamptz
    )`.execute(db);
}
