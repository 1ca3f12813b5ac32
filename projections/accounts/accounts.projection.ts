import type { RecordedEvent } from '../../src/core/events.js';
import type { ProjectionDefinition } from '../../src/infrastructure/projections/projection.js';
import { ACCOUNT_STREAM_PREFIX, type AccountEvent } from '../../src/modules/accounts/account.js';
import { LINK_ITEM_EVENT_TYPES, LINK_ITEM_STREAM_PREFIX, type LinkItemEvent } from '../../src/modules/link/link-items/link-item.js';
import { createAccountsTable } from './accounts.table.js';
import { applyLinkItemEvent } from './linked-accounts.rows.js';

/** `accounts`: one row per account, manual or linked (from version 2; version 3 adds account_revision), what the account list and detail read. */
export const accountsProjection: ProjectionDefinition = {
  name: 'accounts',
  version: 3,
  tables: ['accounts'],
  // LinkItemBalancesRefreshed is not in LINK_ITEM_EVENT_TYPES: only this read model keeps balances.
  eventTypes: ['ManualAccountCreated', 'ManualBalanceUpdated', 'CreditLimitOverridden', 'AccountDeleted', ...LINK_ITEM_EVENT_TYPES, 'LinkItemBalancesRefreshed'],
  createTables: createAccountsTable,
  async apply(trx, events) {
    for (const recorded of events as readonly RecordedEvent<AccountEvent>[]) {
      if (recorded.streamId.startsWith(LINK_ITEM_STREAM_PREFIX)) {
        await applyLinkItemEvent(trx, recorded as unknown as RecordedEvent<LinkItemEvent>);
        continue;
      }
      if (!recorded.streamId.startsWith(ACCOUNT_STREAM_PREFIX)) continue;
      const event = { type: recorded.type, data: recorded.data } as AccountEvent;
      const at = new Date(recorded.metadata.occurredAt);
      const revision = Number(recorded.revision);
      const row = trx.updateTable('accounts').where('id', '=', recorded.data.accountId).where('revision', '<', revision);
      switch (event.type) {
        case 'ManualAccountCreated':
          await trx
            .insertInto('accounts')
            .values({
              id: event.data.accountId,
              user_id: recorded.metadata.userId,
              source: 'manual',
              name: event.data.name,
              type: event.data.type,
              subtype: event.data.subtype,
              mask: event.data.mask,
              currency: event.data.currency,
              institution_name: event.data.institutionName,
              current: event.data.currentBalance,
              credit_limit: event.data.creditLimit,
              user_override_credit_limit: null,
              created_at: at,
              updated_at: at,
              deleted_at: null,
              revision,
              link_item_uuid: null,
              link_item_id: null,
              link_account_id: null,
              official_name: null,
              institution_id: null,
              institution_logo: null,
              institution_url: null,
              available: null,
              billed_products: null,
              needs_reauth: false,
              new_accounts_available: false,
              pending_disconnect_at: null,
              account_revision: -1,
            })
            .onConflict((conflict) => conflict.column('id').doNothing())
            .execute();
          break;
        case 'ManualBalanceUpdated':
          await row.set({ current: event.data.current, updated_at: at, revision }).execute();
          break;
        case 'CreditLimitOverridden':
          await row.where('link_item_uuid', 'is', null).set({ user_override_credit_limit: event.data.creditLimit, updated_at: at, revision }).execute();
          // A linked row's `revision` is its item's stream: its own stream has a revision of its own.
          await trx
            .updateTable('accounts')
            .where('id', '=', event.data.accountId)
            .where('link_item_uuid', 'is not', null)
            .where('account_revision', '<', revision)
            .set({ user_override_credit_limit: event.data.creditLimit, updated_at: at, account_revision: revision })
            .execute();
          break;
        case 'AccountDeleted':
          await row.set({ deleted_at: at, updated_at: at, revision }).execute();
          break;
        default:
          break;
      }
    }
  },
};
