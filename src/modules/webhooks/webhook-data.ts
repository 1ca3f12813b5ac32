import { type Kysely, sql } from 'kysely';
import { accountsProjection } from '../../../projections/accounts/accounts.projection.js';
import { linkItemsProjection } from '../../../projections/link-items/link-items.projection.js';
import { recurringProjection } from '../../../projections/recurring/recurring.projection.js';
import { transactionsProjection } from '../../../projections/transactions/transactions.projection.js';
import type { ProjectionDefinition } from '../../infrastructure/projections/projection.js';
import type { Database } from '../../infrastructure/database/schema.js';
import { findLiveAccount, toDetail } from '../accounts/account.queries.js';
import { recurringStreamOf, recurringStreamRows } from '../insights/recurring/recurring.queries.js';
import { toLinkItem } from '../link/link-items/link-item.queries.js';
import { liveTagsById } from '../tags/tag-directory.js';
import { categorySummariesById } from '../categories/category-directory.js';
import { splitCategoryIdsOf, toTransactionResponse } from '../transactions/transaction.mapper.js';
import { selectTransactions } from '../transactions/transaction.queries.js';
import type { WebhookResource } from './webhook-event-types.js';

/** The read model the API answers a resource from: `data` is rendered once it has passed the event. */
export function readModelOf(resource: WebhookResource): ProjectionDefinition {
  switch (resource.kind) {
    case 'transaction':
      return transactionsProjection;
    case 'account':
      return accountsProjection;
    case 'link_item':
    case 'sync':
      return linkItemsProjection;
    case 'recurring_stream':
      return recurringProjection;
  }
}

/** `data` of a webhook: the resource as the API returns it now, through the API's own queries and mappers; `{id}` when it is gone. */
export async function renderWebhookData(db: Kysely<Database>, userId: string, resource: WebhookResource): Promise<unknown> {
  switch (resource.kind) {
    case 'transaction': {
      const row = await selectTransactions(db, userId).where('t.id', '=', resource.id).executeTakeFirst();
      return row ? toTransactionResponse(row, await liveTagsById(db, userId, row.tag_ids), await categorySummariesById(db, userId, splitCategoryIdsOf([row]))) : { id: resource.id };
    }
    case 'account': {
      const row = await findLiveAccount(db, userId, resource.id);
      return row ? toDetail(row) : { id: resource.id };
    }
    case 'link_item': {
      const row = await liveLinkItem(db, userId, resource.id);
      return row ? toLinkItem(row) : { id: resource.id };
    }
    case 'recurring_stream': {
      const [row] = await recurringStreamRows(db, userId, sql`r.id = ${resource.id}`);
      return row ? recurringStreamOf(row) : { id: resource.id };
    }
    case 'sync': {
      const row = await liveLinkItem(db, userId, resource.linkItemUuid);
      return { linkItemId: row?.link_item_id ?? null, added: resource.added, modified: resource.modified, removed: resource.removed };
    }
  }
}

function liveLinkItem(db: Kysely<Database>, userId: string, linkItemUuid: string) {
  return db.selectFrom('link_items').selectAll().where('user_id', '=', userId).where('id', '=', linkItemUuid).where('disconnected_at', 'is', null).executeTakeFirst();
}
