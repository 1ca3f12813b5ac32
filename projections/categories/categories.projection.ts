import type { Transaction } from 'kysely';
import { unhandled } from '../../src/core/exhaustive.js';
import type { RecordedEvent } from '../../src/core/events.js';
import type { Database } from '../../src/infrastructure/database/schema.js';
import type { ProjectionDefinition } from '../../src/infrastructure/projections/projection.js';
import { CATEGORY_TAXONOMY_EVENT_TYPES, CATEGORY_TAXONOMY_STREAM_PREFIX, type CategoryChanges, type CategoryTaxonomyEvent } from '../../src/modules/categories/category-taxonomy.js';
import { seededTaxonomyOf } from '../../src/modules/categories/user-categories.js';
import { createCategoriesTables } from './categories.table.js';

/**
 * `categories`: each user's category groups and categories, what `GET /categories` lists and what
 * the transaction list joins for each transaction's category. A seeding event expands into the
 * frozen taxonomy of its version. A user's taxonomy is one stream, so `category_taxonomies.revision`
 * says which of its events are applied: an event at or below it is a replay and changes nothing.
 */
export const categoriesProjection: ProjectionDefinition = {
  name: 'categories',
  version: 1,
  tables: ['category_taxonomies', 'category_groups', 'categories'],
  eventTypes: CATEGORY_TAXONOMY_EVENT_TYPES,
  createTables: createCategoriesTables,
  async apply(trx, events) {
    for (const recorded of events as readonly RecordedEvent<CategoryTaxonomyEvent>[]) {
      if (!recorded.streamId.startsWith(CATEGORY_TAXONOMY_STREAM_PREFIX)) continue;
      await applyEvent(trx, recorded);
    }
  },
};

async function applyEvent(trx: Transaction<Database>, recorded: RecordedEvent<CategoryTaxonomyEvent>): Promise<void> {
  const event = { type: recorded.type, data: recorded.data } as CategoryTaxonomyEvent;
  const userId = recorded.metadata.userId;
  const revision = Number(recorded.revision);
  const at = new Date(recorded.metadata.occurredAt);
  if (event.type === 'CategoryTaxonomySeeded') {
    const seeded = seededTaxonomyOf(event.data.userId, event.data.taxonomyVersion);
    const claimed = await trx
      .insertInto('category_taxonomies')
      .values({ user_id: userId, taxonomy_version: event.data.taxonomyVersion, revision })
      .onConflict((conflict) => conflict.column('user_id').doNothing())
      .returning('user_id')
      .executeTakeFirst();
    if (!claimed) return;
    await trx
      .insertInto('category_groups')
      .values(seeded.groups.map((group) => ({ id: group.id, user_id: userId, name: group.name, order: group.order, system_key: group.systemKey, created_at: at, updated_at: at })))
      .execute();
    await trx
      .insertInto('categories')
      .values(
        seeded.categories.map((category) => ({
          id: category.id,
          user_id: userId,
          group_id: category.groupId,
          name: category.name,
          icon_key: category.iconKey,
          hidden: false,
          exclude_from_insights: false,
          order: category.order,
          system_key: category.systemKey,
          created_at: at,
          updated_at: at,
        })),
      )
      .execute();
    return;
  }
  const claimed = await trx.updateTable('category_taxonomies').set({ revision }).where('user_id', '=', userId).where('revision', '<', revision).returning('user_id').executeTakeFirst();
  if (!claimed) return;
  switch (event.type) {
    case 'CategoryGroupCreated':
      await trx.insertInto('category_groups').values({ id: event.data.groupId, user_id: userId, name: event.data.name, order: event.data.order, system_key: null, created_at: at, updated_at: at }).execute();
      break;
    case 'CategoryCreated':
      await trx
        .insertInto('categories')
        .values({
          id: event.data.categoryId,
          user_id: userId,
          group_id: event.data.groupId,
          name: event.data.name,
          icon_key: event.data.iconKey,
          hidden: false,
          exclude_from_insights: false,
          order: event.data.order,
          system_key: null,
          created_at: at,
          updated_at: at,
        })
        .execute();
      break;
    case 'CategoryEdited':
      await trx.updateTable('categories').set({ ...columnsOf(event.data.changes), updated_at: at }).where('id', '=', event.data.categoryId).where('user_id', '=', userId).execute();
      break;
    default:
      unhandled(event);
  }
}

function columnsOf(changes: CategoryChanges) {
  return {
    ...(changes.name !== undefined && { name: changes.name }),
    ...(changes.iconKey !== undefined && { icon_key: changes.iconKey }),
    ...(changes.hidden !== undefined && { hidden: changes.hidden }),
    ...(changes.excludeFromInsights !== undefined && { exclude_from_insights: changes.excludeFromInsights }),
    ...(changes.order !== undefined && { order: changes.order }),
    ...(changes.groupId !== undefined && { group_id: changes.groupId }),
  };
}
