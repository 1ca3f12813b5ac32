import { sql, type Transaction } from 'kysely';
import type { Database } from '../../src/infrastructure/database/schema.js';
import type { SpendingChanges, SpendingTransaction } from './spending-batch.js';
import { AGGREGATE_TABLES, UNCATEGORIZED } from './spending.table.js';

export async function loadSpendingTransactions(trx: Transaction<Database>, ids: readonly string[]): Promise<SpendingTransaction[]> {
  if (ids.length === 0) return [];
  const rows = await trx.selectFrom('spending_transactions').selectAll().where('id', '=', sql<string>`ANY(${[...ids]}::uuid[])`).execute();
  return rows.map((row) => ({ id: row.id, userId: row.user_id, accountId: row.account_id, categoryId: row.category_id, date: row.date, amount: row.amount, pending: row.pending, paired: row.paired, parts: row.parts, revision: row.revision }));
}

/** A batch's changes in a handful of statements, whatever its size: rows as one JSON document each. */
export async function writeSpendingChanges(trx: Transaction<Database>, changes: SpendingChanges): Promise<void> {
  if (changes.upserts.length > 0) {
    const rows = changes.upserts.map((row) => ({ id: row.id, user_id: row.userId, account_id: row.accountId, category_id: row.categoryId, date: row.date, amount: row.amount, pending: row.pending, paired: row.paired, parts: row.parts, revision: row.revision }));
    await sql`
      INSERT INTO spending_transactions (id, user_id, account_id, category_id, date, amount, pending, paired, parts, revision)
      SELECT r.id, r.user_id, r.account_id, r.category_id, r.date, r.amount, r.pending, r.paired, r.parts, r.revision
        FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
          AS r(id uuid, user_id uuid, account_id uuid, category_id uuid, date date, amount numeric, pending boolean, paired boolean, parts jsonb, revision bigint)
      ON CONFLICT (id) DO UPDATE SET account_id = excluded.account_id, category_id = excluded.category_id, date = excluded.date,
                                     amount = excluded.amount, pending = excluded.pending, paired = excluded.paired, parts = excluded.parts, revision = excluded.revision`.execute(trx);
  }
  if (changes.deletes.length > 0) await sql`DELETE FROM spending_transactions WHERE id = ANY(${changes.deletes}::uuid[])`.execute(trx);
  if (changes.deltas.length === 0) return;
  const deltas = JSON.stringify(changes.deltas.map((delta) => ({ user_id: delta.userId, account_id: delta.accountId, category_id: delta.categoryId, day: delta.day, amount: delta.amount, sign: delta.sign })));
  for (const table of AGGREGATE_TABLES) {
    const day = table === 'spending_monthly' ? sql`date_trunc('month', r.day)::date` : sql`r.day`;
    await sql`
      WITH keyed AS (
        SELECT r.user_id, ${day} AS day, r.account_id, coalesce(r.category_id, ${UNCATEGORIZED}::uuid) AS category_id, r.amount, r.sign
          FROM jsonb_to_recordset(${deltas}::jsonb) AS r(user_id uuid, account_id uuid, category_id uuid, day date, amount numeric, sign integer)
      )
      INSERT INTO ${sql.table(table)} AS t (user_id, day, account_id, category_id, outflow, inflow, transactions)
      SELECT user_id, day, account_id, category_id, sum(sign * greatest(-amount, 0)), sum(sign * greatest(amount, 0)), sum(sign)
        FROM keyed GROUP BY user_id, day, account_id, category_id
      ON CONFLICT (user_id, day, account_id, category_id) DO UPDATE
        SET outflow = t.outflow + excluded.outflow, inflow = t.inflow + excluded.inflow, transactions = t.transactions + excluded.transactions`.execute(trx);
    await sql`
      DELETE FROM ${sql.table(table)} AS t
       USING jsonb_to_recordset(${deltas}::jsonb) AS r(user_id uuid, account_id uuid, category_id uuid, day date)
       WHERE t.user_id = r.user_id AND t.day = ${day} AND t.account_id = r.account_id
         AND t.category_id = coalesce(r.category_id, ${UNCATEGORIZED}::uuid) AND t.transactions = 0`.execute(trx);
  }
}

/** A deleted account or a disconnected item's accounts leave every spending table. */
export async function deleteAccountsSpending(trx: Transaction<Database>, accountIds: readonly string[]): Promise<void> {
  if (accountIds.length === 0) return;
  for (const table of ['spending_transactions', ...AGGREGATE_TABLES]) await sql`DELETE FROM ${sql.table(table)} WHERE account_id = ANY(${[...accountIds]}::uuid[])`.execute(trx);
}
