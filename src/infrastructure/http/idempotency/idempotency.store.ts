import type pg from 'pg';
import { CLAIM_HELD_FOR_MS, KEPT_FOR_MS, type KeptAnswer, type KeptRequest } from './idempotency-key.js';

/** The `idempotency_keys` row (migration 0030). */
export interface IdempotencyKeysTable {
  user_id: string;
  key: string;
  fingerprint: string;
  request_id: string;
  locked_until: Date | null;
  status: number | null;
  body: string | null;
  headers: Record<string, string> | null;
  created_at: Date;
  expires_at: Date;
}

/*
 * Named statements, prepared once per connection: they run beside every keyed write. Claims and
 * answers commit without waiting for their WAL flush (synchronous_commit off, for that statement's
 * transaction only): one lost in a crash makes its repeat run the request again, which appends
 * nothing twice (decision 0040), so they need not cost the write a second flush.
 */
const NO_FLUSH_WAIT = `(SELECT set_config('synchronous_commit', 'off', true)) AS no_flush_wait`;

const CLAIM = {
  name: 'ledgerline-idempotency-claim',
  text: `
    INSERT INTO idempotency_keys AS k (user_id, key, fingerprint, request_id, locked_until, expires_at)
    SELECT $1, $2, $3, $4, now() + $5 * interval '1 millisecond', now() + $6 * interval '1 millisecond' FROM ${NO_FLUSH_WAIT}
    ON CONFLICT (user_id, key) DO UPDATE
      SET fingerprint = excluded.fingerprint, request_id = excluded.request_id, locked_until = excluded.locked_until,
          status = NULL, body = NULL, headers = NULL, created_at = now(), expires_at = excluded.expires_at
      WHERE k.expires_at <= now() OR (k.status IS NULL AND k.locked_until <= now() AND k.fingerprint = excluded.fingerprint)
    RETURNING true AS claimed`,
};

const KEPT = {
  name: 'ledgerline-idempotency-kept',
  text: 'SELECT fingerprint, status, body, headers FROM idempotency_keys WHERE user_id = $1 AND key = $2 AND expires_at > now()',
};

const KEEP = {
  name: 'ledgerline-idempotency-keep',
  text: `
    UPDATE idempotency_keys SET status = $4, body = $5, headers = $6::jsonb, locked_until = NULL
     WHERE user_id = $1 AND key = $2 AND request_id = $3 AND EXISTS (SELECT 1 FROM ${NO_FLUSH_WAIT})`,
};

const RELEASE = {
  name: 'ledgerline-idempotency-release',
  text: 'DELETE FROM idempotency_keys WHERE user_id = $1 AND key = $2 AND request_id = $3 AND status IS NULL',
};

/**
 * Claims the key for this request: a new key, one whose 24 hours are over, or one whose first
 * request died without an answer (its claim ran out) with the same request. True when claimed;
 * otherwise `keptFor` says what the key holds.
 */
export async function claimKey(pool: pg.Pool, userId: string, key: string, fingerprint: string, requestId: string): Promise<boolean> {
  const { rows } = await pool.query({ ...CLAIM, values: [userId, key, fingerprint, requestId, CLAIM_HELD_FOR_MS, KEPT_FOR_MS] });
  return rows.length === 1;
}

/** What the key holds (null if it vanished meanwhile: its 24 hours ended and it was pruned). */
export async function keptFor(pool: pg.Pool, userId: string, key: string): Promise<KeptRequest | null> {
  const { rows } = await pool.query<Pick<IdempotencyKeysTable, 'fingerprint' | 'status' | 'body' | 'headers'>>({ ...KEPT, values: [userId, key] });
  const row = rows[0];
  if (!row) return null;
  return { fingerprint: row.fingerprint, answer: row.status === null ? null : { status: row.status, body: row.body ?? '', headers: row.headers ?? {} } };
}

/** Keeps the answer of the request that holds the claim. */
export async function keepAnswer(pool: pg.Pool, userId: string, key: string, requestId: string, answer: KeptAnswer): Promise<void> {
  await pool.query({ ...KEEP, values: [userId, key, requestId, answer.status, answer.body, JSON.stringify(answer.headers)] });
}

/** Gives the key up (the request failed on the server's side): a repeat runs it again. */
export async function releaseKey(pool: pg.Pool, userId: string, key: string, requestId: string): Promise<void> {
  await pool.query({ ...RELEASE, values: [userId, key, requestId] });
}
