import { type Kysely, sql } from 'kysely';
import type { Database } from '../../../infrastructure/database/schema.js';
import { userCategoriesCall, userCategoryGroupsCall } from '../../categories/category-directory.js';

/** Money in these groups is not spending: it is income, or money moving between the user's own accounts. */
export const NOT_SPENDING_GROUPS = ['INCOME', 'TRANSFER_IN', 'TRANSFER_OUT'] as const;
/**
 * Paying a card from checking moves money between the user's own accounts: the spending already
 * counted on the card when it was made. Counting the payment too would count it twice (and on the
 * card, the payment received would cancel the month's purchases). Decision 0015.
 */
export const NOT_SPENDING_CATEGORIES = ['LOAN_PAYMENTS_CREDIT_CARD_PAYMENT'] as const;

/**
 * The user's categories whose money is not spending, read when asked (from the categories read
 * model), so marking a category `excludeFromInsights` or moving it into or out of a group moves
 * the money at once.
 */
export async function categoriesNotSpending(db: Kysely<Database>, userId: string): Promise<string[]> {
  const { rows } = await sql<{ id: string }>`
    SELECT c.id FROM ${userCategoriesCall(userId)} c JOIN ${userCategoryGroupsCall(userId)} g ON g.id = c.group_id
     WHERE (c.exclude_from_insights OR g.system_key = ANY(${[...NOT_SPENDING_GROUPS]}::text[]) OR c.system_key = ANY(${[...NOT_SPENDING_CATEGORIES]}::text[]))`.execute(db);
  return rows.map((row) => row.id);
}
