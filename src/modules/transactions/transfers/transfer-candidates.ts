import { type Kysely, sql } from 'kysely';
import type { Database } from '../../../infrastructure/database/schema.js';
import { TRANSFER_WINDOW_DAYS } from './transfer.js';

/** `c` mirrors `t`: the user's, unpaired, in another account, the opposite amount, within the window. */
const MIRRORS = sql`c.user_id = t.user_id AND c.amount = -t.amount AND c.account_id <> t.account_id
  AND c.date BETWEEN t.date - ${TRANSFER_WINDOW_DAYS}::int AND t.date + ${TRANSFER_WINDOW_DAYS}::int
  AND c.transfer_transaction_id IS NULL`;

/** Two unpaired transactions that could be the two sides of one transfer, `days` apart. */
export interface TransferCandidatePair {
  readonly transactionId: string;
  readonly counterpartId: string;
  readonly days: number;
}

/**
 * From the transactions read model: every unpaired transaction of the user in another account
 * whose amount mirrors one of `transactionIds`' (unpaired, not zero) within the window, the
 * closest dates first, then by ids so that the order never depends on the read.
 */
export async function transferCandidates(db: Kysely<Database>, userId: string, transactionIds: readonly string[]): Promise<TransferCandidatePair[]> {
  if (transactionIds.length === 0) return [];
  const { rows } = await sql<{ transaction_id: string; counterpart_id: string; days: number }>`
    SELECT t.id AS transaction_id, c.id AS counterpart_id, abs(c.date - t.date) AS days
      FROM transactions t
      JOIN transactions c ON ${MIRRORS}
     WHERE t.user_id = ${userId} AND t.id = ANY(${[...transactionIds]}::uuid[]) AND t.transfer_transaction_id IS NULL AND t.amount <> 0
     ORDER BY days, least(t.id, c.id), greatest(t.id, c.id)`.execute(db);
  return rows.map((row) => ({ transactionId: row.transaction_id, counterpartId: row.counterpart_id, days: Number(row.days) }));
}

/**
 * Which of `transactionIds` may be a side of a new transfer: those with a mirror now, and those the
 * read model does not show yet (it may run behind the feed: an async build, EventStoreDB), which
 * the job looks at once it has caught up. One whose row is there and mirrors nothing is left out:
 * the read model applies the feed in order, so every transaction before it is there too, and any
 * after it asks for itself.
 */
export async function awaitingPairing(db: Kysely<Database>, userId: string, transactionIds: readonly string[]): Promise<string[]> {
  if (transactionIds.length === 0) return [];
  const { rows } = await sql<{ id: string }>`
    SELECT x.id FROM unnest(${[...transactionIds]}::uuid[]) AS x(id)
     WHERE NOT EXISTS (SELECT 1 FROM transactions t WHERE t.id = x.id AND t.user_id = ${userId})
        OR EXISTS (
             SELECT 1 FROM transactions t
               JOIN transactions c ON ${MIRRORS}
              WHERE t.id = x.id AND t.user_id = ${userId} AND t.transfer_transaction_id IS NULL AND t.amount <> 0)`.execute(db);
  return rows.map((row) => row.id);
}

/** The transactions that name `transactionId` as their transfer's other side. */
export async function transactionsPairedWith(db: Kysely<Database>, userId: string, transactionId: string): Promise<string[]> {
  const rows = await db.selectFrom('transactions').select('id').where('user_id', '=', userId).where('transfer_transaction_id', '=', transactionId).execute();
  return rows.map((row) => row.id);
}

/** The transactions whose transfer's other side is in one of `accountIds` (accounts that left). */
export async function transactionsPairedInto(db: Kysely<Database>, userId: string, accountIds: readonly string[]): Promise<{ id: string; counterpartId: string }[]> {
  if (accountIds.length === 0) return [];
  const rows = await db
    .selectFrom('transactions')
    .select(['id', 'transfer_transaction_id'])
    .where('user_id', '=', userId)
    .where('transfer_account_id', 'in', [...accountIds])
    .execute();
  return rows.flatMap((row) => (row.transfer_transaction_id ? [{ id: row.id, counterpartId: row.transfer_transaction_id }] : []));
}
