import { type Kysely, sql } from 'kysely';

/**
 * The answers kept for Idempotency-Key (decision 0040): one row per user and key, claimed before the
 * request runs and holding its status and body once it has answered, for 24 hours. Room on each
 * page keeps the answer's update beside its claim (HOT: no index entry written again).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE IF NOT EXISTS idempotency_keys (
      user_id uuid NOT NULL,
      key text NOT NULL CHECK (length(key) BETWEEN 1 AND 255),
      fingerprint text NOT NULL,
      request_id text NOT NULL,
      locked_until timestamptz,
      status integer,
      body text,
      headers jsonb,
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL,
      PRIMARY KEY (user_id, key)
    ) WITH (fillfactor = 80)`.execute(db);
  // Rows arrive in the order they expire: a BRIN index finds the expired ones for the prune job and
  // costs a claim next to nothing, where a B-tree would take an index entry per claim.
  await sql`CREATE INDEX IF NOT EXISTS idempotency_keys_expires_at ON idempotency_keys USING brin (expires_at)`.execute(db);
}
