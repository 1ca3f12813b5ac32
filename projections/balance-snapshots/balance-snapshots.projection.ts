import type { RecordedEvent } from '../../src/core/events.js';
import { nameBasedId } from '../../src/core/ids.js';
import type { ProjectionDefinition } from '../../src/infrastructure/projections/projection.js';
import { ACCOUNT_STREAM_PREFIX, type AccountEvent } from '../../src/modules/accounts/account.js';
import { createBalanceSnapshotsTable } from './balance-snapshots.table.js';

const SNAPSHOT_NAMESPACE = 'a5d0f3a2-7c1e-4b8e-9f63-0c2b8d4e6f11';

/** `balance_snapshots`: end-of-day balances, one per account per day (the later snapshot wins). */
export const balanceSnapshotsProjection: ProjectionDefinition = {
  name: 'balance-snapshots',
  version: 1,
  tables: ['balance_snapshots'],
  eventTypes: ['BalanceSnapshotTaken', 'AccountDeleted'],
  createTables: createBalanceSnapshotsTable,
  async apply(trx, events) {
    for (const recorded of events as readonly RecordedEvent<AccountEvent>[]) {
      if (!recorded.streamId.startsWith(ACCOUNT_STREAM_PREFIX)) continue;
      const event = { type: recorded.type, data: recorded.data } as AccountEvent;
      if (event.type === 'BalanceSnapshotTaken') {
        const snapshot = {
          current_balance: event.data.currentBalance,
          available_balance: event.data.availableBalance,
          credit_limit: event.data.creditLimit,
          taken_at: new Date(recorded.metadata.occurredAt),
        };
        await trx
          .insertInto('balance_snapshots')
          .values({
            id: nameBasedId(SNAPSHOT_NAMESPACE, `${event.data.accountId}:${event.data.date}`),
            user_id: recorded.metadata.userId,
            account_id: event.data.accountId,
            date: event.data.date,
            ...snapshot,
          })
          .onConflict((conflict) => conflict.columns(['account_id', 'date']).doUpdateSet(snapshot))
          .execute();
      } else if (event.type === 'AccountDeleted') {
        await trx.deleteFrom('balance_snapshots').where('account_id', '=', event.data.accountId).execute();
      }
    }
  },
};
