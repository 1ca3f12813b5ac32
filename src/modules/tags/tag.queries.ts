import { Inject } from '@nestjs/common';
import { type IQueryHandler, Query, QueryHandler } from '@nestjs/cqrs';
import { type Kysely, type Selectable, sql } from 'kysely';
import type { TagsTable } from '../../../projections/tags/tags.table.js';
import { NotFoundError } from '../../core/errors.js';
import type { Database } from '../../infrastructure/database/schema.js';
import { DATABASE } from '../../infrastructure/runtime/tokens.js';
import type { TagListResponse, TagResponse } from './http/tag.responses.js';

export class ListTags extends Query<TagListResponse> {
  constructor(readonly userId: string) {
    super();
  }
}

export class GetTag extends Query<TagResponse> {
  constructor(
    readonly userId: string,
    readonly tagId: string,
  ) {
    super();
  }
}

/**
 * Every tag but deleted ones, archived included, by name. `usageCount` is counted when read from
 * the live transactions (the `transactions` read model holds no deleted transaction and none of a
 * deleted account), one GIN index probe per tag: exact under any concurrency (decision 0010).
 */
@QueryHandler(ListTags)
export class ListTagsHandler implements IQueryHandler<ListTags> {
  constructor(@Inject(DATABASE) private readonly db: Kysely<Database>) {}

  async execute({ userId }: ListTags): Promise<TagListResponse> {
    const rows = await this.db
      .selectFrom('tags as g')
      .selectAll('g')
      .select(sql<string>`(SELECT count(*) FROM transactions t WHERE t.user_id = g.user_id AND t.tag_ids @> ARRAY[g.id])`.as('usage_count'))
      .where('g.user_id', '=', userId)
      .where('g.deleted_at', 'is', null)
      .orderBy(sql`lower(g.name)`)
      .orderBy('g.id')
      .execute();
    return { tags: rows.map((row) => ({ ...toTagResponse(row), usageCount: Number(row.usage_count) })) };
  }
}

@QueryHandler(GetTag)
export class GetTagHandler implements IQueryHandler<GetTag> {
  constructor(@Inject(DATABASE) private readonly db: Kysely<Database>) {}

  async execute({ userId, tagId }: GetTag): Promise<TagResponse> {
    const row = await this.db.selectFrom('tags').selectAll().where('id', '=', tagId).where('user_id', '=', userId).where('deleted_at', 'is', null).executeTakeFirst();
    if (!row) throw new NotFoundError('Tag');
    return toTagResponse(row);
  }
}

function toTagResponse(row: Selectable<TagsTable>): TagResponse {
  return {
    id: row.id,
    name: row.name,
    color: row.color,
    archivedAt: row.archived_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}
