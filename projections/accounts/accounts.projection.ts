import type { RecordedEvent } from '../../src/core/events.js';
import type { ProjectionDefinition } from '../../src/infrastructure/projections/projection.js';
import { ACCOUNT_STREAM_PREFIX, type AccountEvent } from '../../src/modules/accounts/account.js';
import { createAccountsTable } from './accounts.table.js';

/** `accounts`: one row per account, what the account list and detail read. */
export const accountsProjection: ProjectionDefinition = {
  name: 'accounts',
  version: 1,
  tables: ['accounts'],
  eventTypes: ['ManualAccountCreated', 'ManualBalanceUpdated', 'CreditLimitOverridden', 'AccountDeleted'],
  createTables: createAccountsTable,
  async apply(trx, events) {
    for (const recorded of events as readonly RecordedEvent<AccountEvent>[]) {
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
            })
            .onConflict((conflict) => conflict.column('id').doNothing())
            .execute();
          break;
        case 'ManualBalanceUpdated':
          await row.set({ current: event.data.current, updated_at: at, revision }).execute();
          break;
        case 'CreditLimitOverridden':
          await row.set({ user_override_credit_limit: event.data.creditLimit, updated_at: at, revision }).execute();
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
