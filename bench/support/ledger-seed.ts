import { type Kysely, sql } from 'kysely';
import type { Database } from '../../src/infrastructure/database/schema.js';

/** Transactions per seeded user: each user has one manual account and five tags. */
const TRANSACTIONS_PER_USER = 2_000;
/** Transactions per INSERT: each chunk ends well inside the feed's old-transaction bound (decision 0008). */
const CHUNK = 20_000;
/** Events per transaction on average: created, edited, half tagged, one in twenty deleted (+ the users' own). */
export const EVENTS_PER_TRANSACTION = 2.56;

/**
 * Appends the events the API writes for a ledger straight into the event store, in the shapes the
 * app appends them: per user a ManualAccountCreated, five TagCreated and a ManualBalanceUpdated
 * every 100 transactions; per transaction a TransactionCreated, a TransactionEdited (amount and
 * name, locked), on every other one a TagApplied, and one in twenty deleted. Ids are derived from
 * the transaction's number, so two seeds of the same size hold the same data. Returns the number
 * of events written.
 */
export async function seedLedgerEvents(db: Kysely<Database>, transactions: number, onProgress?: (events: number) => void): Promise<number> {
  let written = 0;
  for (let from = 0; from < transactions; from += CHUNK) {
    const to = Math.min(from + CHUNK, transactions) - 1;
    const result = await sql`
      WITH tx AS (
        SELECT t, md5('tx' || t)::uuid AS id, md5('user' || (t / ${TRANSACTIONS_PER_USER}))::uuid AS user_id, md5('account' || (t / ${TRANSACTIONS_PER_USER}))::uuid AS account_id,
               timestamptz '2026-01-01T00:00:00Z' + make_interval(secs => t) AS at, (t % 997 + 1)::text || '.' || lpad((t % 100)::text, 2, '0') AS amount
          FROM generate_series(${from}::bigint, ${to}::bigint) AS t),
      seeded (t, step, stream_id, revision, type, data, user_id, at) AS (
        SELECT t, 0, 'account-' || account_id, 0, 'ManualAccountCreated',
               jsonb_build_object('accountId', account_id, 'name', 'Checking ' || (t / ${TRANSACTIONS_PER_USER}), 'type', 'bank', 'subtype', 'checking', 'currency', 'USD',
                                  'mask', '0000', 'institutionName', NULL, 'currentBalance', '1000.00', 'creditLimit', NULL), user_id, at
          FROM tx WHERE t % ${TRANSACTIONS_PER_USER} = 0
        UNION ALL
        SELECT t, k, 'tag-' || md5('tag' || (t / ${TRANSACTIONS_PER_USER}) || '-' || k)::uuid, 0, 'TagCreated',
               jsonb_build_object('tagId', md5('tag' || (t / ${TRANSACTIONS_PER_USER}) || '-' || k)::uuid, 'name', 'Tag ' || k, 'color', 'blue'), user_id, at
          FROM tx, generate_series(1, 5) AS k WHERE t % ${TRANSACTIONS_PER_USER} = 0
        UNION ALL
        SELECT t, 10, 'transaction-' || id, 0, 'TransactionCreated',
               jsonb_build_object('transactionId', id, 'accountId', account_id, 'source', 'manual', 'amount', '-' || amount, 'date', to_char(at, 'YYYY-MM-DD'),
                                  'name', 'Merchant ' || (t % 997), 'merchantName', NULL, 'categoryId', NULL, 'notes', NULL, 'pending', false,
                                  'paymentChannel', 'online', 'location', NULL, 'tagIds', '[]'::jsonb, 'authorizedDate', NULL), user_id, at
          FROM tx
        UNION ALL
        SELECT t, 11, 'transaction-' || id, 1, 'TransactionEdited',
               jsonb_build_object('transactionId', id, 'changes', jsonb_build_array(
                 jsonb_build_object('field', 'amount', 'oldValue', '-' || amount, 'newValue', '-' || amount || '1', 'locked', true),
                 jsonb_build_object('field', 'name', 'oldValue', 'Merchant ' || (t % 997), 'newValue', 'Shop ' || (t % 997), 'locked', true))), user_id, at
          FROM tx
        UNION ALL
        SELECT t, 12, 'transaction-' || id, 2, 'TagApplied',
               jsonb_build_object('transactionId', id, 'tagIds', jsonb_build_array(md5('tag' || (t / ${TRANSACTIONS_PER_USER}) || '-' || (1 + t % 5))::uuid),
                                  'resultingTagIds', jsonb_build_array(md5('tag' || (t / ${TRANSACTIONS_PER_USER}) || '-' || (1 + t % 5))::uuid), 'locked', true), user_id, at
          FROM tx WHERE t % 2 = 0
        UNION ALL
        SELECT t, 13, 'transaction-' || id, 2, 'TransactionDeleted', jsonb_build_object('transactionId', id, 'accountId', account_id), user_id, at
          FROM tx WHERE t % 20 = 7
        UNION ALL
        SELECT t, 14, 'account-' || account_id, 1 + (t % ${TRANSACTIONS_PER_USER}) / 100, 'ManualBalanceUpdated',
               jsonb_build_object('accountId', account_id, 'current', (1000 + t % 997)::text || '.00'), user_id, at
          FROM tx WHERE t % 100 = 50)
      INSERT INTO events (event_id, stream_id, stream_revision, type, data, metadata)
      SELECT gen_random_uuid(), stream_id, revision, type, data,
             jsonb_build_object('userId', user_id, 'actor', 'user', 'requestId', 'seed-' || t || '-' || step, 'causationId', 'seed-' || t, 'correlationId', 'seed-' || t,
                                'schemaVersion', 1, 'occurredAt', to_char((at + make_interval(secs => step / 100.0)) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
        FROM seeded ORDER BY t, step`.execute(db);
    written += Number(result.numAffectedRows ?? 0n);
    onProgress?.(written);
  }
  return written;
}
