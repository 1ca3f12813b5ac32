import { Inject } from '@nestjs/common';
import { type IQueryHandler, Query, QueryHandler } from '@nestjs/cqrs';
import type { Kysely } from 'kysely';
import { NotFoundError } from '../../core/errors.js';
import type { Database } from '../../infrastructure/database/schema.js';
import { DATABASE } from '../../infrastructure/runtime/tokens.js';
import { type UserCategoryGroupRow, type UserCategoryRow, userCategories, userCategoryGroups } from './category-directory.js';
import type { CategoryGroupResponse, CategoryListResponse, CategoryResponse } from './http/category.responses.js';

export class ListCategories extends Query<CategoryListResponse> {
  constructor(readonly userId: string) {
    super();
  }
}

export class GetCategory extends Query<CategoryResponse> {
  constructor(
    readonly userId: string,
    readonly categoryId: string,
  ) {
    super();
  }
}

export class GetCategoryGroup extends Query<CategoryGroupResponse> {
  constructor(
    readonly userId: string,
    readonly groupId: string,
  ) {
    super();
  }
}

@QueryHandler(ListCategories)
export class ListCategoriesHandler implements IQueryHandler<ListCategories> {
  constructor(@Inject(DATABASE) private readonly db: Kysely<Database>) {}

  async execute({ userId }: ListCategories): Promise<CategoryListResponse> {
    const [categories, groups] = await Promise.all([
      this.db.selectFrom(userCategories(userId, 'c')).selectAll().orderBy('order').orderBy('name').orderBy('id').execute(),
      this.db.selectFrom(userCategoryGroups(userId, 'g')).selectAll().orderBy('order').orderBy('name').orderBy('id').execute(),
    ]);
    return { categories: categories.map(toCategoryResponse), groups: groups.map(toCategoryGroupResponse) };
  }
}

@QueryHandler(GetCategory)
export class GetCategoryHandler implements IQueryHandler<GetCategory> {
  constructor(@Inject(DATABASE) private readonly db: Kysely<Database>) {}

  async execute({ userId, categoryId }: GetCategory): Promise<CategoryResponse> {
    const row = await this.db.selectFrom(userCategories(userId, 'c')).selectAll().where('id', '=', categoryId).executeTakeFirst();
    if (!row) throw new NotFoundError('Category');
    return toCategoryResponse(row);
  }
}

@QueryHandler(GetCategoryGroup)
export class GetCategoryGroupHandler implements IQueryHandler<GetCategoryGroup> {
  constructor(@Inject(DATABASE) private readonly db: Kysely<Database>) {}

  async execute({ userId, groupId }: GetCategoryGroup): Promise<CategoryGroupResponse> {
    const row = await this.db.selectFrom(userCategoryGroups(userId, 'g')).selectAll().where('id', '=', groupId).executeTakeFirst();
    if (!row) throw new NotFoundError('Category group');
    return toCategoryGroupResponse(row);
  }
}

function toCategoryResponse(row: UserCategoryRow): CategoryResponse {
  return {
    id: row.id,
    name: row.name,
    iconKey: row.icon_key,
    groupId: row.group_id,
    hidden: row.hidden,
    excludeFromInsights: row.exclude_from_insights,
    order: row.order,
    systemKey: row.system_key,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

function toCategoryGroupResponse(row: UserCategoryGroupRow): CategoryGroupResponse {
  return { id: row.id, name: row.name, order: row.order, systemKey: row.system_key, createdAt: row.created_at.toISOString(), updatedAt: row.updated_at.toISOString() };
}
