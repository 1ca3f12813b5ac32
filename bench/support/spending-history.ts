import type pg from 'pg';
import { systemTaxonomyOf } from '../../src/modules/categories/user-categories.js';

// As in seed.ts: each chunk's INSERT must end well inside the feed's old-transaction bound (decision 0008).
const CHUNK = 10_000;

export interface SpendingAccounts {
  readonly checking: string;
  readonly savings: string;
  readonly card: string;
}

/** The user's system categories by what their money is (decision 0015). */
export interface SpendingCategories {
  readonly spending: readonly string[];
  readonly income: readonly string[];
  readonly transferIn: readonly string[];
  readonly transferOut: readonly string[];
  readonly cardPayment: string;
}

export interface ListedCategories {
  readonly categories: Array<{ id: string; groupId: string; systemKey: string | null }>;
  readonly groups: Array<{ id: string; systemKey: string | null }>;
}

/** Splits the user's system categories (as GET /v1/categories lists them) by what their money is. */
export function spendingCategoriesOf(listed: ListedCategories): SpendingCategories {
  const groupKey = new Map(listed.groups.map((group) => [group.id, group.systemKey]));
  const inGroup = (key: string) => listed.categories.filter((category) => groupKey.get(category.groupId) === key).map((category) => category.id);
  const cardPayment = listed.categories.find((category) => category.systemKey === 'LOAN_PAYMENTS_CREDIT_CARD_PAYMENT')?.id;
  const notSpending = new Set(['INCOME', 'TRANSFER_IN', 'TRANSFER_OUT']);
  const spending = listed.categories.filter((category) => category.systemKey !== null && category.id !== cardPayment && !notSpending.has(groupKey.get(category.groupId) ?? '')).map((category) => category.id);
  if (!cardPayment || spending.length === 0) throw new Error('the system taxonomy is not what the bench expects');
  return { spending, income: inGroup('INCOME'), transferIn: inGroup('TRANSFER_IN'), transferOut: inGroup('TRANSFER_OUT'), cardPayment };
}

/**
 * Appends `count` TransactionCreated events straight into the event store (one new stream each,
 * as the API writes them), dated evenly over the 730 days ending today (UTC), so that every day
 * holds several categories: 85% purchases (60% on the card), 4% refunds (credits in a spending
 * category), 4% income, 3% transfers in or out, 2% card payments received, 2% uncategorized
 * money either way; 2% of all are pending. Income, transfers, card payments, pending money and
 * uncategorized credits must not count as spending.
 */
export async function seedSpendingHistory(pool: pg.Pool, userId: string, accounts: SpendingAccounts, categories: SpendingCategories, count: number, onProgress: (done: number) => void): Promise<void> {
  for (let done = 0; done < count; done += CHUNK) {
    const size = Math.min(CHUNK, count - done);
    await pool.query(
      `INSERT INTO events (event_id, stream_id, stream_revision, type, data, metadata)
       SELECT id, 'transaction-' || id, 0, 'TransactionCreated',
              jsonb_build_object(
                'transactionId', id, 'accountId', account_id, 'source', 'manual',
                'amount', trim_scale(round(amount::numeric, 2))::text, 'date', to_char(today - (g % 730), 'YYYY-MM-DD'),
                'name', 'Merchant ' || (g % 997), 'merchantName', NULL, 'categoryId', category_id, 'notes', NULL,
                'pending', pending, 'paymentChannel', 'online', 'location', NULL, 'tagIds', '[]'::jsonb, 'authorizedDate', NULL),
              jsonb_build_object(
                'userId', $1::text, 'actor', 'system', 'requestId', 'bench-seed', 'causationId', 'bench-seed',
                'correlationId', 'bench-seed', 'schemaVersion', 1,
                'occurredAt', to_char((now() - make_interval(secs => g)) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
         FROM (
           SELECT id, g, today, pending,
                  CASE kind WHEN 'purchase' THEN CASE WHEN side < 0.6 THEN $4 ELSE $2 END
                            WHEN 'refund' THEN CASE WHEN side < 0.7 THEN $4 ELSE $2 END
                            WHEN 'transfer_in' THEN CASE WHEN side < 0.5 THEN $3 ELSE $2 END
                            WHEN 'transfer_out' THEN CASE WHEN side < 0.5 THEN $3 ELSE $2 END
                            WHEN 'card_payment' THEN $4 ELSE $2 END AS account_id,
                  CASE kind WHEN 'purchase' THEN ($7::text[])[1 + floor(pick * cardinality($7::text[]))::int]
                            WHEN 'refund' THEN ($7::text[])[1 + floor(pick * cardinality($7::text[]))::int]
                            WHEN 'income' THEN ($8::text[])[1 + floor(pick * cardinality($8::text[]))::int]
                            WHEN 'transfer_in' THEN ($9::text[])[1 + floor(pick * cardinality($9::text[]))::int]
                            WHEN 'transfer_out' THEN ($10::text[])[1 + floor(pick * cardinality($10::text[]))::int]
                            WHEN 'card_payment' THEN $11 END AS category_id,
                  CASE kind WHEN 'purchase' THEN -(1 + size * size * 300)
                            WHEN 'refund' THEN 1 + size * 100
                            WHEN 'income' THEN 500 + size * 3000
                            WHEN 'transfer_in' THEN 50 + size * 1000
                            WHEN 'transfer_out' THEN -(50 + size * 1000)
                            WHEN 'card_payment' THEN 100 + size * 2000
                            ELSE CASE WHEN side < 0.5 THEN -(1 + size * 200) ELSE 1 + size * 200 END END AS amount
             FROM (
               SELECT gen_random_uuid() AS id, g, (now() AT TIME ZONE 'UTC')::date AS today, random() < 0.02 AS pending,
                      random() AS side, random() AS pick, random() AS size, random() AS roll
                 FROM generate_series($5::int + 1, $5::int + $6::int) AS g) AS drawn
             CROSS JOIN LATERAL (
               SELECT CASE WHEN roll < 0.85 THEN 'purchase' WHEN roll < 0.89 THEN 'refund' WHEN roll < 0.93 THEN 'income'
                           WHEN roll < 0.945 THEN 'transfer_in' WHEN roll < 0.96 THEN 'transfer_out' WHEN roll < 0.98 THEN 'card_payment'
                           ELSE 'uncategorized' END AS kind) AS chosen) AS seed`,
      [userId, accounts.checking, accounts.savings, accounts.card, done, size, categories.spending, categories.income, categories.transferIn, categories.transferOut, categories.cardPayment],
    );
    onProgress(done + size);
  }
}

/**
 * What GET /spending's totalSpending should be, by another road than the handler's: one statement
 * over the `transactions` read model (not the spending projection), with the categories and
 * accounts read models joined, buckets by `date_trunc`, each bucket's net money out floored at 0.
 * `today` is the UTC day (the user's time zone is left at its default).
 */
export async function independentSpendingTotal(pool: pg.Pool, userId: string, period: '1m' | '1y' | 'all', accountType: string | null): Promise<string> {
  const { rows } = await pool.query<{ total: string }>(
    `WITH today AS (SELECT (now() AT TIME ZONE 'UTC')::date AS day),
     scope AS (
       SELECT t.date, t.amount, t.category_id,
              coalesce(c.exclude_from_insights OR g.system_key IN ('INCOME', 'TRANSFER_IN', 'TRANSFER_OUT') OR c.system_key = 'LOAN_PAYMENTS_CREDIT_CARD_PAYMENT', false) AS not_spending
         FROM transactions t
         JOIN accounts a ON a.id = t.account_id AND a.deleted_at IS NULL
         LEFT JOIN user_categories($1::uuid, $4::uuid[], $5::uuid[]) c ON c.id = t.category_id
         LEFT JOIN user_category_groups($1::uuid, $4::uuid[]) g ON g.id = c.group_id
        WHERE t.user_id = $1 AND NOT t.pending AND ($2::text IS NULL OR a.type = $2::text)),
     spending_window AS (
       SELECT CASE $3::text WHEN '1m' THEN day - 29 WHEN '1y' THEN day - 364 ELSE least(day, (SELECT min(date) FROM scope)) END AS first_day, day AS last_day FROM today)
     SELECT coalesce(sum(greatest(0, net)), 0)::text AS total FROM (
       SELECT greatest(w.first_day, date_trunc(CASE $3::text WHEN '1m' THEN 'day' ELSE 'month' END, s.date::timestamp)::date) AS bucket, sum(-s.amount) AS net
         FROM scope s, spending_window w
        WHERE s.date BETWEEN w.first_day AND w.last_day AND NOT s.not_spending AND (s.amount < 0 OR s.category_id IS NOT NULL)
        GROUP BY 1) AS buckets`,
    [userId, accountType, period, systemTaxonomyOf(userId).groupIds, systemTaxonomyOf(userId).categoryIds],
  );
  return rows[0].total;
}
