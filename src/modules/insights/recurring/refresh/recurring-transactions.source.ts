import { type Kysely, sql } from 'kysely';
import type { Database } from '../../../../infrastructure/database/schema.js';
import { systemTaxonomyOf } from '../../../categories/user-categories.js';
import type { RecurringCounterparty, RecurringTransaction } from '../recurring-stream.types.js';
import { editTouches, type TransactionEvent } from '../../../transactions/transaction.js';

/** A live transaction as the refresh reads it from the transactions read model, with its category's system key. */
export interface RecurringTransactionRow {
  readonly id: string;
  readonly account_id: string;
  readonly amount: string;
  readonly date: string;
  readonly name: string;
  readonly merchant_name: string | null;
  readonly counterparties: unknown[] | null;
  readonly category_id: string | null;
  readonly pending: boolean;
}

/**
 * The user's live transactions in live accounts: removed, replaced and deleted transactions and
 * those of deleted accounts or disconnected items are not in the read model, so they cannot keep
 * a stream alive. The two sides of a transfer are money moved, not a bill or an income (decision 0043).
 */
export async function loadRecurringTransactions(db: Kysely<Database>, userId: string): Promise<RecurringTransactionRow[]> {
  const { rows } = await sql<RecurringTransactionRow>`
    SELECT t.id, t.account_id, t.amount::text AS amount, to_char(t.date, 'YYYY-MM-DD') AS date, t.name, t.merchant_name,
           t.counterparties, t.category_id, t.pending
      FROM transactions t
      JOIN accounts a ON a.id = t.account_id AND a.user_id = t.user_id AND a.deleted_at IS NULL
     WHERE t.user_id = ${userId} AND t.transfer_transaction_id IS NULL`.execute(db);
  return rows;
}

/**
 * Whether a transaction's event can change what `loadRecurringTransactions` reads of it — its
 * account, amount, date, names, category or pending flag — and so make, change or end a stream.
 * Tags, notes, the payment channel and the location cannot: an edit of only those queues no refresh.
 */
export function mayChangeRecurringStreams(event: TransactionEvent): boolean {
  if (event.type === 'TagApplied' || event.type === 'TagRemoved' || event.type === 'TransactionSplit' || event.type === 'TransactionSplitsCleared') return false;
  return event.type !== 'TransactionEdited' || editTouches(event, ['name', 'merchantName', 'amount', 'date', 'categoryId']);
}

/** The engine's view of a row. A system category's key never changes, so its id (reference data) says it; a user's own has none. */
export function toRecurringTransaction(userId: string, row: RecurringTransactionRow): RecurringTransaction {
  return {
    id: row.id,
    accountId: row.account_id,
    amount: row.amount,
    date: row.date,
    name: row.name,
    merchantName: row.merchant_name,
    counterparties: counterpartiesOf(row.counterparties),
    categorySystemKey: row.category_id === null ? null : (systemTaxonomyOf(userId).categories.get(row.category_id)?.systemKey ?? null),
    pending: row.pending,
  };
}

function counterpartiesOf(stored: unknown[] | null): RecurringCounterparty[] | null {
  if (stored === null) return null;
  return stored.flatMap((party) => {
    const { name, type } = (party ?? {}) as { name?: unknown; type?: unknown };
    return typeof name === 'string' ? [{ name, type: typeof type === 'string' ? type : '' }] : [];
  });
}
