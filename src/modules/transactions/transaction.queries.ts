import { Inject } from '@nestjs/common';
import { type IQueryHandler, Query, QueryHandler } from '@nestjs/cqrs';
import { type Kysely, sql } from 'kysely';
import { NotFoundError, invalid } from '../../core/errors.js';
import type { Database } from '../../infrastructure/database/schema.js';
import { withEntityTag } from '../../infrastructure/http/entity-tags.js';
import { DATABASE } from '../../infrastructure/runtime/tokens.js';
import { requireLiveAccounts } from '../accounts/account.queries.js';
import { categorySummariesById, isCategoryOf, userCategories, userCategoryGroups } from '../categories/category-directory.js';
import { liveTagsById } from '../tags/tag-directory.js';
import type { TransactionActivityResponse, TransactionPageResponse, TransactionResponse } from './http/transaction.responses.js';
import { decodeCursor, encodeCursor } from './transaction-cursor.js';
import { toActivityEventResponse } from './activity/transaction-activity.mapper.js';
import { splitCategoryIdsOf, toTransactionResponse } from './transaction.mapper.js';

export interface TransactionListFilter {
  readonly accountIds: readonly string[];
  readonly categoryGroups: readonly string[];
  readonly categoryId?: string;
  readonly tagId?: string;
  readonly startDate?: string;
  readonly endDate?: string;
  readonly cursor?: string;
  readonly limit: number;
}

export class ListTransactions extends Query<TransactionPageResponse> {
  constructor(
    readonly userId: string,
    readonly filter: TransactionListFilter,
  ) {
    super();
  }
}

export class GetTransaction extends Query<TransactionResponse> {
  constructor(
    readonly userId: string,
    readonly transactionId: string,
  ) {
    super();
  }
}

export class GetTransactionActivity extends Query<TransactionActivityResponse> {
  constructor(
    readonly userId: string,
    readonly transactionId: string,
  ) {
    super();
  }
}

export function selectTransactions(db: Kysely<Database>, userId: string) {
  return db
    .selectFrom('transactions as t')
    // A departed account's transactions leave with it; this also hides any a sync still in flight imported after it left.
    .innerJoin('accounts as a', (join) => join.onRef('a.id', '=', 't.account_id').on('a.deleted_at', 'is', null))
    .selectAll('t')
    .select(['a.name as account_name', 'a.type as account_type', 'a.subtype as account_subtype', 'a.institution_name', 'a.institution_logo', 'a.institution_url'])
    // The category is joined at read time, so a rename or a move shows on every transaction at once (decisions 0011, 0034).
    .leftJoin(userCategories(userId, 'c'), 'c.id', 't.category_id')
    .leftJoin(userCategoryGroups(userId, 'g'), 'g.id', 'c.group_id')
    .select(['c.name as category_name', 'c.icon_key as category_icon_key', 'c.system_key as category_system_key', 'c.group_id as category_group_id'])
    .select(['g.name as category_group_name', 'g.system_key as category_group_system_key'])
    .where('t.user_id', '=', userId);
}

/** One keyset page (plus one row, to know whether more follow), newest first. */
export function listTransactionsQuery(db: Kysely<Database>, userId: string, filter: TransactionListFilter) {
  if (filter.startDate && filter.endDate && filter.startDate > filter.endDate) throw invalid(['startDate'], 'startDate must not be after endDate');
  let query = selectTransactions(db, userId);
  if (filter.accountIds.length > 0) query = query.where('t.account_id', 'in', filter.accountIds);
  if (filter.categoryId) query = query.where('t.category_id', '=', filter.categoryId);
  if (filter.categoryGroups.length > 0) {
    // Through the read model: a category moved to another group follows it.
    const inGroups = db
      .selectFrom(userCategories(userId, 'fc'))
      .innerJoin(userCategoryGroups(userId, 'fg'), 'fg.id', 'fc.group_id')
      .select('fc.id')
      .where('fg.system_key', 'in', filter.categoryGroups);
    query = query.where('t.category_id', 'in', inGroups);
  }
  if (filter.tagId) {
    // The GIN index on tag_ids finds the carriers; a deleted tag is carried by nothing any more.
    const tagId = filter.tagId;
    query = query
      .where(sql<boolean>`t.tag_ids @> ARRAY[${tagId}]::uuid[]`)
      .where((eb) => eb.exists(eb.selectFrom('tags as ft').select('ft.id').where('ft.id', '=', tagId).where('ft.user_id', '=', userId).where('ft.deleted_at', 'is', null)));
  }
  if (filter.startDate) query = query.where('t.date', '>=', filter.startDate);
  if (filter.endDate) query = query.where('t.date', '<=', filter.endDate);
  if (filter.cursor) {
    const after = decodeCursor(userId, filter.cursor);
    query = query.where(sql<boolean>`(t.date, t.created_at, t.id) < (${after.date}::date, ${after.createdAt}::timestamptz, ${after.id}::uuid)`);
  }
  return query.orderBy('t.date', 'desc').orderBy('t.created_at', 'desc').orderBy('t.id', 'desc').limit(filter.limit + 1);
}

@QueryHandler(ListTransactions)
export class ListTransactionsHandler implements IQueryHandler<ListTransactions> {
  constructor(@Inject(DATABASE) private readonly db: Kysely<Database>) {}

  async execute({ userId, filter }: ListTransactions): Promise<TransactionPageResponse> {
    // The page is read beside the filter's checks: a filter that names something not the user's answers 404 either way.
    const [rows] = await Promise.all([listTransactionsQuery(this.db, userId, filter).execute(), requireFilterTargets(this.db, userId, filter)]);
    const page = rows.slice(0, filter.limit);
    const last = page[page.length - 1];
    const [liveTags, splitCategories] = await Promise.all([liveTagsById(this.db, userId, page.flatMap((row) => row.tag_ids)), categorySummariesById(this.db, userId, splitCategoryIdsOf(page))]);
    const hasMore = rows.length > filter.limit;
    return {
      transactions: page.map((row) => toTransactionResponse(row, liveTags, splitCategories)),
      hasMore,
      nextCursor: hasMore && last ? encodeCursor(userId, { date: last.date, createdAt: last.created_at.toISOString(), id: last.id }) : null,
    };
  }
}

/**
 * Every id a list filter names must be the user's: their live accounts, one of their categories,
 * one of their tags (not deleted). Another user's id, or one that names nothing, is a 404 — the
 * same answer everywhere, never an empty page that reads like "nothing there".
 */
async function requireFilterTargets(db: Kysely<Database>, userId: string, filter: TransactionListFilter): Promise<void> {
  const { categoryId, tagId } = filter;
  const checks: Promise<void>[] = [requireLiveAccounts(db, userId, filter.accountIds)];
  if (categoryId) {
    const own = isCategoryOf(db, userId, categoryId);
    checks.push(own.then((found) => (found ? undefined : Promise.reject(new NotFoundError('Category')))));
  }
  if (tagId) {
    const own = db.selectFrom('tags').select('id').where('id', '=', tagId).where('user_id', '=', userId).where('deleted_at', 'is', null).executeTakeFirst();
    checks.push(own.then((row) => (row ? undefined : Promise.reject(new NotFoundError('Tag')))));
  }
  await Promise.all(checks);
}

@QueryHandler(GetTransaction)
export class GetTransactionHandler implements IQueryHandler<GetTransaction> {
  constructor(@Inject(DATABASE) private readonly db: Kysely<Database>) {}

  async execute({ userId, transactionId }: GetTransaction): Promise<TransactionResponse> {
    const row = await selectTransactions(this.db, userId).where('t.id', '=', transactionId).executeTakeFirst();
    if (!row) throw new NotFoundError('Transaction');
    const [liveTags, splitCategories] = await Promise.all([liveTagsById(this.db, userId, row.tag_ids), categorySummariesById(this.db, userId, splitCategoryIdsOf([row]))]);
    return withEntityTag(toTransactionResponse(row, liveTags, splitCategories), String(row.revision));
  }
}

@QueryHandler(GetTransactionActivity)
export class GetTransactionActivityHandler implements IQueryHandler<GetTransactionActivity> {
  constructor(@Inject(DATABASE) private readonly db: Kysely<Database>) {}

  async execute({ userId, transactionId }: GetTransactionActivity): Promise<TransactionActivityResponse> {
    const rows = await this.db
      .selectFrom('transaction_activity')
      .select(['id', 'kind', 'actor', 'created_at', 'field', 'old_value', 'new_value', 'request_id', 'correlation_id', 'rule_id'])
      .where('transaction_id', '=', transactionId)
      .where('user_id', '=', userId)
      .orderBy('revision')
      .orderBy('ordinal')
      .execute();
    // Every history starts with its creation; none yet (this read model behind the list's) is an empty history, not a 404.
    if (rows.length === 0) {
      const live = await this.db.selectFrom('transactions').select('id').where('id', '=', transactionId).where('user_id', '=', userId).executeTakeFirst();
      if (!live) throw new NotFoundError('Transaction');
    }
    return { events: rows.map(toActivityEventResponse) };
  }
}
