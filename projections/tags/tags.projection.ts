import type { Transaction } from 'kysely';
import { unhandled } from '../../src/core/exhaustive.js';
import type { RecordedEvent } from '../../src/core/events.js';
import type { Database } from '../../src/infrastructure/database/schema.js';
import type { ProjectionDefinition } from '../../src/infrastructure/projections/projection.js';
import { TAG_EVENT_TYPES, type TagEvent, tagStreamId } from '../../src/modules/tags/tag.js';
import { createTagsTable } from './tags.table.js';

/**
 * `tags`: every tag of every user, deleted ones kept with `deleted_at` (reads leave them out).
 * Each row keeps the revision it reflects, so an event applied twice changes nothing. Usage
 * counts are not kept here: they are counted from `transactions` when read (decision 0010).
 */
export const tagsProjection: ProjectionDefinition = {
  name: 'tags',
  version: 1,
  tables: ['tags'],
  eventTypes: TAG_EVENT_TYPES,
  createTables: createTagsTable,
  async apply(trx, events) {
    for (const recorded of events) {
      const event = { type: recorded.type, data: recorded.data } as TagEvent;
      // Only a tag's own stream: a name-claim stream (`tag-name-…`) carries other event types.
      if (recorded.streamId !== tagStreamId(event.data.tagId)) continue;
      await applyTagEvent(trx, event, recorded);
    }
  },
};

async function applyTagEvent(trx: Transaction<Database>, event: TagEvent, recorded: RecordedEvent): Promise<void> {
  const at = new Date(recorded.metadata.occurredAt);
  const revision = Number(recorded.revision);
  const update = (values: { name?: string; color?: string; archived_at?: Date | null; deleted_at?: Date }) =>
    trx.updateTable('tags').set({ ...values, updated_at: at, revision }).where('id', '=', event.data.tagId).where('revision', '<', revision).execute();
  switch (event.type) {
    case 'TagCreated':
      await trx
        .insertInto('tags')
        .values({ id: event.data.tagId, user_id: recorded.metadata.userId, name: event.data.name, color: event.data.color, archived_at: null, deleted_at: null, created_at: at, updated_at: at, revision })
        .onConflict((conflict) => conflict.column('id').doNothing())
        .execute();
      return;
    case 'TagRenamed':
      await update({ name: event.data.name });
      return;
    case 'TagRecolored':
      await update({ color: event.data.color });
      return;
    case 'TagArchived':
      await update({ archived_at: at });
      return;
    case 'TagUnarchived':
      await update({ archived_at: null });
      return;
    case 'TagDeleted':
      await update({ deleted_at: at });
      return;
    default:
      unhandled(event);
  }
}
