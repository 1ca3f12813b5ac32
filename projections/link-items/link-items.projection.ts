import type { RecordedEvent } from '../../src/core/events.js';
import type { ProjectionDefinition } from '../../src/infrastructure/projections/projection.js';
import { LINK_ITEM_EVENT_TYPES, LINK_ITEM_STREAM_PREFIX, type LinkItemEvent } from '../../src/modules/link/link-items/link-item.js';
import { createLinkItemsTable } from './link-items.table.js';

/** `link_items`: one row per linked item with its state flags; what the item list and alerts read. */
export const linkItemsProjection: ProjectionDefinition = {
  name: 'link-items',
  version: 1,
  tables: ['link_items'],
  eventTypes: [...LINK_ITEM_EVENT_TYPES],
  createTables: createLinkItemsTable,
  async apply(trx, events) {
    for (const recorded of events as readonly RecordedEvent<LinkItemEvent>[]) {
      if (!recorded.streamId.startsWith(LINK_ITEM_STREAM_PREFIX)) continue;
      const event = { type: recorded.type, data: recorded.data } as LinkItemEvent;
      const at = new Date(recorded.metadata.occurredAt);
      const revision = Number(recorded.revision);
      // Rows keep the stream revision they reflect: an event applied twice changes nothing.
      const row = trx.updateTable('link_items').where('id', '=', event.data.linkItemUuid).where('revision', '<', revision);
      switch (event.type) {
        case 'LinkItemLinked': {
          const { institution } = event.data;
          await trx
            .insertInto('link_items')
            .values({
              id: event.data.linkItemUuid,
              user_id: recorded.metadata.userId,
              link_item_id: event.data.linkItemId,
              provider: event.data.provider,
              institution_id: institution.id,
              institution_name: institution.name,
              institution_logo: institution.logo,
              institution_url: institution.url,
              available_products: event.data.availableProducts,
              billed_products: event.data.billedProducts,
              needs_reauth: false,
              error: null,
              new_accounts_available: false,
              pending_disconnect_at: null,
              created_at: at,
              updated_at: at,
              disconnected_at: null,
              revision,
            })
            .onConflict((conflict) => conflict.column('id').doNothing())
            .execute();
          break;
        }
        case 'LinkItemLoginRequired':
        case 'LinkItemErrored':
          await row.set({ needs_reauth: true, error: JSON.stringify(event.data.error), updated_at: at, revision }).execute();
          break;
        case 'LinkItemLoginRepaired':
          await row.set({ needs_reauth: false, error: null, updated_at: at, revision }).execute();
          break;
        case 'LinkItemPendingDisconnect':
          await row.set({ pending_disconnect_at: new Date(event.data.disconnectAt), updated_at: at, revision }).execute();
          break;
        case 'LinkItemNewAccountsAvailable':
          await row.set({ new_accounts_available: true, updated_at: at, revision }).execute();
          break;
        case 'LinkItemReconnected': {
          const { institution } = event.data;
          await row
            .set({
              needs_reauth: false,
              error: null,
              new_accounts_available: false,
              pending_disconnect_at: null,
              institution_name: institution.name,
              institution_logo: institution.logo,
              institution_url: institution.url,
              updated_at: at,
              revision,
            })
            .execute();
          break;
        }
        case 'LinkItemDisconnected':
          await row.set({ disconnected_at: at, updated_at: at, revision }).execute();
          break;
        default:
          break;
      }
    }
  },
};
