import type { Transaction } from 'kysely';
import { unhandled } from '../../src/core/exhaustive.js';
import type { RecordedEvent } from '../../src/core/events.js';
import type { Database } from '../../src/infrastructure/database/schema.js';
import type { ProjectionDefinition } from '../../src/infrastructure/projections/projection.js';
import { CATEGORY_TAXONOMY_EVENT_TYPES, CATEGORY_TAXONOMY_STREAM_PREFIX, type CategoryChanges, type CategoryTaxonomyEvent } from '../../src/modules/categories/category-taxonomy.js';
import { systemTaxonomyOf } from '../../src/modules/categories/user-categories.js';
import { createCategoriesTables } from './categories.table.js';

/**
 * `categories`: the system taxonomy as reference rows (filled from code with the schema: a change
 * to it is a new version), each user's own groups and categories, and their edits of system
 * categories; `user_categories(user, …)` and `user_category_groups(user, …)` join them into what
 * `GET /categories` lists and what transactions show (decision 0034). A user's taxonomy is one
 * stream, so `category_taxonomies.revision` says which of its events are applied: an event at or
 * below it is a replay and changes nothing.
 */
export const categoriesProjection: ProjectionDefinition = {
  name: 'categories',
  version: 3,
  tables: ['system_category_groups', 'system_categories', 'category_taxonomies', 'category_groups', 'categories'],
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
  const at = new Date(recorded.metadata.occurredAt);
  const revision = Number(recorded.revision);
  // A retired seeding event adds no rows: it only dates the user's system categories, as it did.
  const seededAt = event.type === 'CategoryTaxonomySeeded' ? at : null;
  const claimed = await trx
    .insertInto('category_taxonomies')
    .values({ user_id: userId, seeded_at: seededAt, revision })
    .onConflict((conflict) =>
      conflict
        .column('user_id')
        .doUpdateSet((eb) => ({ revision: eb.ref('excluded.revision'), seeded_at: eb.fn.coalesce('category_taxonomies.seeded_at', 'excluded.seeded_at') }))
        .where('category_taxonomies.revision', '<', revision),
    )
    .returning('user_id')
    .executeTakeFirst();
  if (!claimed) return;
  switch (event.type) {
    case 'CategoryTaxonomySeeded':
      break;
    case 'CategoryGroupCreated':
      await trx.insertInto('category_groups').values({ id: event.data.groupId, user_id: userId, name: event.data.name, order: event.data.order, created_at: at, updated_at: at }).execute();
      break;
    case 'CategoryCreated':
      await trx
        .insertInto('categories')
        .values({
          id: event.data.categoryId,
          user_id: userId,
          system_key: null,
          group_id: event.data.groupId,
          name: event.data.name,
          icon_key: event.data.iconKey,
          hidden: false,
          exclude_from_insights: false,
          order: event.data.order,
          created_at: at,
          updated_at: at,
        })
        .execute();
      break;
    case 'CategoryEdited': {
      const columns = { ...columnsOf(event.data.changes), updated_at: at };
      const system = systemTaxonomyOf(userId).categories.get(event.data.categoryId);
      if (!system) {
        await trx.updateTable('categories').set(columns).where('id', '=', event.data.categoryId).where('user_id', '=', userId).execute();
        break;
      }
      // An edit of a system category: a row of only the fields the user changed, over the reference row.
      await trx
        .insertInto('categories')
        .values({ id: system.id, user_id: userId, system_key: system.systemKey, created_at: at, ...columns })
        .onConflict((conflict) => conflict.column('id').doUpdateSet(columns))
        .execute();
      break;
    }
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
