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
  // Claims a key for a request (decision 0040): a new key, one whose 24 hours are over, one whose
  // first request died without an answer (its claim ran out) with the same request, or one this
  // request holds already. Called on its own before a request runs, or as a condition of the
  // write's own transaction (ledgerline_require), so the claim commits with the write it guards.
  await sql`
    CREATE OR REPLACE FUNCTION ledgerline_claim_idempotency_key(p_user uuid, p_key text, p_fingerprint text, p_request text, p_held_ms double precision, p_kept_ms double precision)
    RETURNS boolean LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO idempotency_keys AS k (user_id, key, fingerprint, request_id, locked_until, expires_at)
      VALUES (p_user, p_key, p_fingerprint, p_request, now() + p_held_ms * interval '1 millisecond', now() + p_kept_ms * interval '1 millisecond')
      ON CONFLICT (user_id, key) DO UPDATE
        SET fingerprint = excluded.fingerprint, request_id = excluded.request_id, locked_until = excluded.locked_until,
            status = NULL, body = NULL, headers = NULL, created_at = now(), expires_at = excluded.expires_at
        WHERE k.request_id = excluded.request_id OR k.expires_at <= now()
           OR (k.status IS NULL AND k.locked_until <= now() AND k.fingerprint = excluded.fingerprint);
      RETURN FOUND;
    END $$`.execute(db);
}
