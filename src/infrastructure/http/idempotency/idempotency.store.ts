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

const CLAIM_CALL = 'ledgerline_claim_idempotency_key($1, $2, $3, $4, $5, $6)';

const CLAIM = {
  name: 'ledgerline-idempotency-claim',
  text: `SELECT ${CLAIM_CALL} AS claimed FROM ${NO_FLUSH_WAIT}`,
};

/** A write's answer kept with no claim before it (its request appended nothing): the key is claimed and answered at once. */
const CLAIM_ANSWERED = {
  name: 'ledgerline-idempotency-claim-answered',
  text: `
    INSERT INTO idempotency_keys AS k (user_id, key, fingerprint, request_id, locked_until, status, body, headers, expires_at)
    SELECT $1, $2, $3, $4, NULL, $5, $6, $7::jsonb, now() + $8 * interval '1 millisecond' FROM ${NO_FLUSH_WAIT}
    ON CONFLICT (user_id, key) DO UPDATE
      SET fingerprint = excluded.fingerprint, request_id = excluded.request_id, locked_until = NULL, status = excluded.status,
          body = excluded.body, headers = excluded.headers, created_at = now(), expires_at = excluded.expires_at
      WHERE k.request_id = excluded.request_id OR k.expires_at <= now()
         OR (k.status IS NULL AND k.locked_until <= now() AND k.fingerprint = excluded.fingerprint)
    RETURNING true AS kept`,
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
export async function claimKey(pool: pg.Pool, claim: KeyClaim): Promise<boolean> {
  const { rows } = await pool.query<{ claimed: boolean }>({ ...CLAIM, values: claimValues(claim) });
  return rows[0]?.claimed === true;
}

/** Who claims which key for which request. */
export interface KeyClaim {
  readonly userId: string;
  readonly key: string;
  readonly fingerprint: string;
  readonly requestId: string;
}

/** The claim as a condition of the write's own transaction: it commits with the write, or neither does. */
export function claimCondition(claim: KeyClaim): { sql: string; parameters: readonly unknown[] } {
  return { sql: CLAIM_CALL, parameters: claimValues(claim) };
}

function claimValues(claim: KeyClaim): unknown[] {
  return [claim.userId, claim.key, claim.fingerprint, claim.requestId, CLAIM_HELD_FOR_MS, KEPT_FOR_MS];
}

/** Claims the key and keeps the answer in one statement (a request that appended nothing); false: another request holds the key. */
export async function claimAnswered(pool: pg.Pool, claim: KeyClaim, answer: KeptAnswer): Promise<boolean> {
  const { rows } = await pool.query({ ...CLAIM_ANSWERED, values: [claim.userId, claim.key, claim.fingerprint, claim.requestId, answer.status, answer.body, JSON.stringify(answer.headers), KEPT_FOR_MS] });
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
