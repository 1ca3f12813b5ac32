import type { RecordedEvent } from '../../src/core/events.js';
import type { ProjectionDefinition } from '../../src/infrastructure/projections/projection.js';
import { ACCOUNT_STREAM_PREFIX, type AccountEvent } from '../../src/modules/accounts/account.js';
import {
  BROKERAGE_ACCOUNT_STREAM_PREFIX,
  type BrokerageAccountEvent,
  BROKERAGE_AUTHORIZATION_EVENT_TYPES,
  BROKERAGE_AUTHORIZATION_STREAM_PREFIX,
  type BrokerageAuthorizationEvent,
  type BrokerageHoldingsRefreshed,
} from '../../src/modules/brokerage/brokerage.events.js';
import { LINK_ITEM_EVENT_TYPES, LINK_ITEM_STREAM_PREFIX, type LinkItemEvent } from '../../src/modules/link/link-items/link-item.js';
import { createAccountsTable } from './accounts.table.js';
import { applyBrokerageAuthorizationEvent, applyBrokerageHoldingsRefreshed } from './brokerage-accounts.rows.js';
import { applyLinkItemEvent } from './linked-accounts.rows.js';

/**
 * `accounts`: one row per account, manual or linked (from version 2; version 3 adds account_revision;
 * version 4 adds brokerage investment accounts and their columns; version 5: a linked account
 * disconnected on its own leaves the list, and a brokerage account a later connection brings again
 * moves to it, back in the list), what the account list and detail read.
 */
export const accountsProjection: ProjectionDefinition = {
  name: 'accounts',
  version: 5,
  // Inline: written in the transaction of every append, so a write's answer is built from it (decision 0033).
  mode: 'inline',
  tables: ['accounts'],
  // LinkItemBalancesRefreshed is not in LINK_ITEM_EVENT_TYPES: only this read model keeps balances.
  // Of a brokerage account's own stream, only its holdings matter here: their total value is its balance.
  eventTypes: [
    'ManualAccountCreated',
    'ManualBalanceUpdated',
    'CreditLimitOverridden',
    'AccountDeleted',
    ...LINK_ITEM_EVENT_TYPES,
    'LinkItemAccountDisconnected',
    'LinkItemBalancesRefreshed',
    ...BROKERAGE_AUTHORIZATION_EVENT_TYPES,
    'BrokerageHoldingsRefreshed',
  ],
  createTables: createAccountsTable,
  async apply(trx, events) {
    for (const recorded of events as readonly RecordedEvent<AccountEvent>[]) {
      if (recorded.streamId.startsWith(LINK_ITEM_STREAM_PREFIX)) {
        await applyLinkItemEvent(trx, recorded as unknown as RecordedEvent<LinkItemEvent>);
        continue;
      }
      if (recorded.streamId.startsWith(BROKERAGE_AUTHORIZATION_STREAM_PREFIX)) {
        await applyBrokerageAuthorizationEvent(trx, recorded as unknown as RecordedEvent<BrokerageAuthorizationEvent>);
        continue;
      }
      if (recorded.streamId.startsWith(BROKERAGE_ACCOUNT_STREAM_PREFIX)) {
        const event = recorded as unknown as RecordedEvent<BrokerageAccountEvent>;
        if (event.type === 'BrokerageHoldingsRefreshed') await applyBrokerageHoldingsRefreshed(trx, event as RecordedEvent<BrokerageHoldingsRefreshed>);
        continue;
      }
      if (!recorded.streamId.startsWith(ACCOUNT_STREAM_PREFIX)) continue;
      const event = { type: recorded.type, data: recorded.data } as AccountEvent;
      const at = new Date(recorded.metadata.occurredAt);
      const revision = Number(recorded.revision);
      // A brokerage account's `revision` is its authorization's stream: its own `account-<id>` stream never moves it.
      const row = trx.updateTable('accounts').where('id', '=', recorded.data.accountId).where('revision', '<', revision).where('brokerage_authorization_uuid', 'is', null);
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
