import { type Kysely, sql } from 'kysely';
import type { Database } from '../../database/schema.js';
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
 * Claims and answers commit without waiting for their WAL flush (synchronous_commit off, for that
 * statement's transaction only): one lost in a crash makes its repeat run the request again, which
 * appends nothing twice (decision 0040), so they need not cost the write a second flush.
 */
const NO_FLUSH_WAIT = sql`(SELECT set_config('synchronous_commit', 'off', true)) AS no_flush_wait`;

/**
 * Claims the key for this request: a new key, one whose 24 hours are over, or one whose first
 * request died without an answer (its claim ran out) with the same request. True when claimed;
 * otherwise `keptFor` says what the key holds.
 */
export async function claimKey(db: Kysely<Database>, userId: string, key: string, fingerprint: string, requestId: string): Promise<boolean> {
  const { rows } = await sql<{ claimed: boolean }>`
    INSERT INTO idempotency_keys AS k (user_id, key, fingerprint, request_id, locked_until, expires_at)
    SELECT ${userId}, ${key}, ${fingerprint}, ${requestId}, now() + ${`${CLAIM_HELD_FOR_MS} milliseconds`}::interval, now() + ${`${KEPT_FOR_MS} milliseconds`}::interval
      FROM ${NO_FLUSH_WAIT}
    ON CONFLICT (user_id, key) DO UPDATE
      SET fingerprint = excluded.fingerprint, request_id = excluded.request_id, locked_until = excluded.locked_until,
          status = NULL, body = NULL, headers = NULL, created_at = now(), expires_at = excluded.expires_at
      WHERE k.expires_at <= now() OR (k.status IS NULL AND k.locked_until <= now() AND k.fingerprint = excluded.fingerprint)
    RETURNING true AS claimed`.execute(db);
  return rows.length === 1;
}

/** What the key holds (null if it vanished meanwhile: its 24 hours ended and it was pruned). */
export async function keptFor(db: Kysely<Database>, userId: string, key: string): Promise<KeptRequest | null> {
  const row = await db.selectFrom('idempotency_keys').select(['fingerprint', 'status', 'body', 'headers']).where('user_id', '=', userId).where('key', '=', key).where('expires_at', '>', sql<Date>`now()`).executeTakeFirst();
  if (!row) return null;
  return { fingerprint: row.fingerprint, answer: row.status === null ? null : { status: row.status, body: row.body ?? '', headers: row.headers ?? {} } };
}

/** Keeps the answer of the request that holds the claim. */
export async function keepAnswer(db: Kysely<Database>, userId: string, key: string, requestId: string, answer: KeptAnswer): Promise<void> {
  await sql`
    UPDATE idempotency_keys SET status = ${answer.status}, body = ${answer.body}, headers = ${JSON.stringify(answer.headers)}::jsonb, locked_until = NULL
     WHERE user_id = ${userId} AND key = ${key} AND request_id = ${requestId} AND EXISTS ${sql`(SELECT 1 FROM ${NO_FLUSH_WAIT})`}`.execute(db);
}

/** Gives the key up (the request failed on the server's side): a repeat runs it again. */
export async function releaseKey(db: Kysely<Database>, userId: string, key: string, requestId: string): Promise<void> {
  await db.deleteFrom('idempotency_keys').where('user_id', '=', userId).where('key', '=', key).where('request_id', '=', requestId).where('status', 'is', null).execute();
}
