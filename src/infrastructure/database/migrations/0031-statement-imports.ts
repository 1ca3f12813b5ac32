import { type Kysely, sql } from 'kysely';

/**
 * Statement imports into manual accounts (decision 0041): the uploaded file (at most 10 MB, kept
 * until the import has run) and the import's progress, written with its job in one transaction.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE IF NOT EXISTS statement_imports (
      id uuid PRIMARY KEY,
      user_id uuid NOT NULL,
      account_id uuid NOT NULL,
      format text NOT NULL CHECK (format IN ('csv', 'ofx')),
      options jsonb NOT NULL,
      file bytea CHECK (octet_length(file) <= 10485760),
      status text NOT NULL CHECK (status IN ('queued', 'running', 'completed', 'failed')),
      total_rows integer NOT NULL,
      rows_done integer NOT NULL DEFAULT 0,
      imported integer NOT NULL DEFAULT 0,
      duplicates integer NOT NULL DEFAULT 0,
      failed integer NOT NULL DEFAULT 0,
      failed_rows jsonb NOT NULL DEFAULT '[]',
      error text,
      correlation_id text NOT NULL,
      created_at timestamptz NOT NULL,
      completed_at timestamptz
    )`.execute(db);
  await sql`CREATE INDEX IF NOT EXISTS statement_imports_user ON statement_imports (user_id, created_at)`.execute(db);
}
