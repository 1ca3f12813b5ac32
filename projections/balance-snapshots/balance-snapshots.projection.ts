import { nameBasedId } from '../../src/core/ids.js';
import type { ProjectionDefinition } from '../../src/infrastructure/projections/projection.js';
import { ACCOUNT_STREAM_PREFIX, type BalanceSnapshotTaken } from '../../src/modules/accounts/account.js';
import { departingAccountIds, TRANSACTION_ACCOUNT_DEPARTURE_EVENT_TYPES } from '../../src/modules/accounts/account-departures.js';
import { createBalanceSnapshotsTable } from './balance-snapshots.table.js';

const SNAPSHOT_NAMESPACE = 'a5d0f3a2-7c1e-4b8e-9f63-0c2b8d4e6f11';

/**
 * `balance_snapshots`: end-of-day balances, one per account per day (the later snapshot wins); an
 * account that leaves (deleted, or disconnected alone or with its item) takes its history out with
 * it. Version 2: a disconnected item's or account's snapshots leave too (version 1 kept them,
 * hidden only by the accounts read model).
 */
export const balanceSnapshotsProjection: ProjectionDefinition = {
  name: 'balance-snapshots',
  version: 2,
  tables: ['balance_snapshots'],
  eventTypes: ['BalanceSnapshotTaken', ...TRANSACTION_ACCOUNT_DEPARTURE_EVENT_TYPES],
  createTables: createBalanceSnapshotsTable,
  async apply(trx, events) {
    for (const recorded of events) {
      const departing = departingAccountIds(recorded);
      if (departing) {
        if (departing.length > 0) await trx.deleteFrom('balance_snapshots').where('account_id', 'in', departing).execute();
        continue;
      }
      if (!recorded.streamId.startsWith(ACCOUNT_STREAM_PREFIX) || recorded.type !== 'BalanceSnapshotTaken') continue;
      const { data } = recorded as unknown as { data: BalanceSnapshotTaken['data'] };
      const snapshot = { current_balance: data.currentBalance, available_balance: data.availableBalance, credit_limit: data.creditLimit, taken_at: new Date(recorded.metadata.occurredAt) };
      await trx
        .insertInto('balance_snapshots')
        .values({ id: nameBasedId(SNAPSHOT_NAMESPACE, `${data.accountId}:${data.date}`), user_id: recorded.metadata.userId, account_id: data.accountId, date: data.date, ...snapshot })
        .onConflict((conflict) => conflict.columns(['account_id', 'date']).doUpdateSet(snapshot))
        .execute();
    }
  },
};
