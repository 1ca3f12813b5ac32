import { Inject, Injectable } from '@nestjs/common';
import { type Kysely, sql } from 'kysely';
import type { Database } from '../../infrastructure/database/schema.js';
import { DATABASE } from '../../infrastructure/runtime/tokens.js';
import { type CategorySummary, systemTaxonomyOf } from './user-categories.js';

/** The read model every category read goes through; named here so no module imports the projection. */
export const CATEGORIES_READ_MODEL = 'categories';

/** A category as one user sees it: a system one with their edits over it, or one of their own. */
export interface UserCategoryRow {
  id: string;
  user_id: string;
  group_id: string;
  name: string;
  icon_key: string;
  hidden: boolean;
  exclude_from_insights: boolean;
  order: number;
  system_key: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface UserCategoryGroupRow {
  id: string;
  user_id: string;
  name: string;
  order: number;
  system_key: string | null;
  created_at: Date;
  updated_at: Date;
}

/** The columns a reader selects from `userCategories`/`userCategoryGroups` beside its own row (the transaction's, the stream's). */
export interface JoinedCategoryColumns {
  category_id: string | null;
  category_name: string | null;
  category_icon_key: string | null;
  category_system_key: string | null;
  category_group_id: string | null;
  category_group_name: string | null;
  category_group_system_key: string | null;
}

/** The category as the categories read model names it now (decision 0034); null when the row has none, or one no longer known. */
export function joinedCategoryOf(row: JoinedCategoryColumns): CategorySummary | null {
  if (!row.category_id || row.category_name === null || row.category_group_id === null) return null;
  return {
    id: row.category_id,
    name: row.category_name,
    iconKey: row.category_icon_key ?? '',
    systemKey: row.category_system_key,
    groupId: row.category_group_id,
    groupName: row.category_group_name ?? '',
    groupSystemKey: row.category_group_system_key,
  };
}

/** The calls of the read model's taxonomy functions for one user, the ids of their system rows given (decision 0034). */
export function userCategoriesCall(userId: string) {
  const { groupIds, categoryIds } = systemTaxonomyOf(userId);
  return sql<UserCategoryRow>`user_categories(${userId}::uuid, ${groupIds}::uuid[], ${categoryIds}::uuid[])`;
}
export function userCategoryGroupsCall(userId: string) {
  return sql<UserCategoryGroupRow>`user_category_groups(${userId}::uuid, ${systemTaxonomyOf(userId).groupIds}::uuid[])`;
}

/** `FROM user_categories(user, …) AS alias`: the user's whole taxonomy, joined from reference rows and their own (decision 0034). */
export const userCategories = <A extends string>(userId: string, alias: A) => userCategoriesCall(userId).as(alias);
export const userCategoryGroups = <A extends string>(userId: string, alias: A) => userCategoryGroupsCall(userId).as(alias);

@Injectable()
export class CategoryDirectory {
  constructor(@Inject(DATABASE) private readonly db: Kysely<Database>) {}

  /** Whether `categoryId` names a category of this user (system or their own, hidden ones included); a system one needs no read. */
  isCategoryOf(userId: string, categoryId: string): Promise<boolean> {
    return isCategoryOf(this.db, userId, categoryId);
  }
}

export async function isCategoryOf(db: Kysely<Database>, userId: string, categoryId: string): Promise<boolean> {
  if (systemTaxonomyOf(userId).categories.has(categoryId)) return true;
  const own = await db.selectFrom('categories').select('id').where('id', '=', categoryId).where('user_id', '=', userId).where('system_key', 'is', null).executeTakeFirst();
  return own !== undefined;
}

/** The categories among `categoryIds` as the read model names them now, by id; unknown ids are left out. */
export async function categorySummariesById(db: Kysely<Database>, userId: string, categoryIds: readonly string[]): Promise<Map<string, CategorySummary>> {
  const ids = [...new Set(categoryIds)];
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom(userCategories(userId, 'c'))
    .innerJoin(userCategoryGroups(userId, 'g'), 'g.id', 'c.group_id')
    .select(['c.id as category_id', 'c.name as category_name', 'c.icon_key as category_icon_key', 'c.system_key as category_system_key', 'c.group_id as category_group_id'])
    .select(['g.name as category_group_name', 'g.system_key as category_group_system_key'])
    .where('c.id', 'in', ids)
    .execute();
  return new Map(rows.flatMap((row) => {
    const summary = joinedCategoryOf(row);
    return summary ? [[summary.id, summary] as const] : [];
  }));
}
