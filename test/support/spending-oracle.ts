import { type Kysely, sql } from 'kysely';
import type { Database } from '../../src/infrastructure/database/schema.js';
import { userCategoriesCall, userCategoryGroupsCall } from '../../src/modules/categories/category-directory.js';

export interface SpendingAsked {
  readonly period: '1w' | '1m' | '3m' | '6m' | '1y' | 'ytd' | 'all';
  readonly accountType?: string;
  readonly accountId?: string;
  /** GET /spending/credit: credit cards only. */
  readonly credit?: boolean;
}

/**
 * What GET /spending should answer, computed in one SQL statement over the `transactions` read
 * model (not the spending projection), with PostgreSQL's own time zones and `date_trunc` for the
 * window and the buckets: a different road to the same definition (decision 0015).
 */
export async function expectedSpending(db: Kysely<Database>, userId: string, now: Date, timeZone: string, asked: SpendingAsked): Promise<Array<{ date: string; amount: number }>> {
  const unit = { '1w': 'day', '1m': 'day', '3m': 'week', '6m': 'week', '1y': 'month', ytd: 'month', all: 'month' }[asked.period];
  const { rows } = await sql<{ date: string; amount: string }>`
    WITH today AS (SELECT (${now.toISOString()}::timestamptz AT TIME ZONE ${timeZone})::date AS day),
    in_scope AS (
      SELECT t.date, part.amount, c.id AS category_id,
             coalesce(c.exclude_from_insights OR g.system_key IN ('INCOME', 'TRANSFER_IN', 'TRANSFER_OUT') OR c.system_key = 'LOAN_PAYMENTS_CREDIT_CARD_PAYMENT', false) AS not_spending
        FROM transactions t
        JOIN accounts a ON a.id = t.account_id AND a.deleted_at IS NULL
        -- A split counts each part under its own category; the sides of a transfer count nowhere.
        CROSS JOIN LATERAL (
          SELECT p.amount, p.category_id FROM jsonb_to_recordset(t.splits) AS p(amount numeric, category_id uuid)
          UNION ALL
          SELECT t.amount, t.category_id WHERE jsonb_array_length(t.splits) = 0
        ) part
        LEFT JOIN ${userCategoriesCall(userId)} c ON c.id = part.category_id
        LEFT JOIN ${userCategoryGroupsCall(userId)} g ON g.id = c.group_id
       WHERE t.user_id = ${userId} AND NOT t.pending AND t.transfer_transaction_id IS NULL
         AND (${asked.accountType ?? null}::text IS NULL OR a.type = ${asked.accountType ?? null})
         AND (${asked.accountId ?? null}::uuid IS NULL OR a.id = ${asked.accountId ?? null})
         AND (NOT ${asked.credit ?? false}::boolean OR a.type = 'credit_card')
    ),
    spending_window AS (
      SELECT CASE ${asked.period}
               WHEN '1w' THEN day - 6 WHEN '1m' THEN day - 29 WHEN '3m' THEN day - 90 WHEN '6m' THEN day - 181 WHEN '1y' THEN day - 364
               WHEN 'ytd' THEN date_trunc('year', day::timestamp)::date
               ELSE least(day, (SELECT min(date) FROM in_scope))
             END AS first_day, day AS last_day
        FROM today
    ),
    buckets AS (
      SELECT DISTINCT greatest(w.first_day, date_trunc(${unit}, d)::date) AS bucket
        FROM spending_window w, generate_series(w.first_day::timestamp, w.last_day::timestamp, interval '1 day') AS d
    ),
    money_out AS (
      SELECT greatest(w.first_day, date_trunc(${unit}, s.date::timestamp)::date) AS bucket, -s.amount AS amount
        FROM in_scope s, spending_window w
       WHERE s.date BETWEEN w.first_day AND w.last_day AND NOT s.not_spending
         AND (s.amount < 0 OR s.category_id IS NOT NULL)
    )
    SELECT to_char(b.bucket, 'YYYY-MM-DD') AS date, greatest(0, coalesce(sum(m.amount), 0))::text AS amount
      FROM buckets b LEFT JOIN money_out m ON m.bucket = b.bucket
     GROUP BY b.bucket ORDER BY b.bucket`.execute(db);
  return rows.map((row) => ({ date: row.date, amount: Number(row.amount) }));
}
