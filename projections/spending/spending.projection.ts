import type { DomainEvent } from '../../src/core/events.js';
import type { ProjectionDefinition } from '../../src/infrastructure/projections/projection.js';
import { departingAccountIds, TRANSACTION_ACCOUNT_DEPARTURE_EVENT_TYPES } from '../../src/modules/accounts/account-departures.js';
import { editTouches, TRANSACTION_STREAM_PREFIX, type TransactionEdited } from '../../src/modules/transactions/transaction.js';
import { SpendingBatch } from './spending-batch.js';
import { createSpendingTables } from './spending.table.js';
import { deleteAccountsSpending, loadSpendingTransactions, writeSpendingChanges } from './spending-writes.js';

/**
 * `spending`: posted money per user × account × category × day and × month, what `GET /spending`
 * sums. Which categories count, and which accounts are live, is decided when read (from the
 * `categories` and `accounts` read models), so excluding a category or deleting an account moves
 * the money at once without touching these rows (docs/decisions/0015).
 */
export const spendingProjection: ProjectionDefinition = {
  name: 'spending',
  // v4: transfers count nowhere, a split counts each part under its own category (decision 0043).
  version: 4,
  tables: ['spending_transactions', 'spending_daily', 'spending_monthly'],
  eventTypes: ['TransactionCreated', 'TransactionImported', 'TransactionEdited', 'TransactionDeleted', 'TransactionRemoved', 'TransactionReplaced', 'TransferPaired', 'TransferUnpaired', 'TransactionSplit', 'TransactionSplitsCleared', ...TRANSACTION_ACCOUNT_DEPARTURE_EVENT_TYPES],
  changedBy: changesSpending,
  createTables: createSpendingTables,
  async apply(trx, batchEvents) {
    const events = batchEvents.filter(changesSpending);
    const onTransactionStreams = events.filter((recorded) => recorded.streamId.startsWith(TRANSACTION_STREAM_PREFIX));
    const ids = [...new Set(onTransactionStreams.map((recorded) => (recorded.data as { transactionId: string }).transactionId))];
    const batch = new SpendingBatch(await loadSpendingTransactions(trx, ids));
    for (const recorded of events) {
      const leaving = departingAccountIds(recorded);
      if (leaving) {
        await writeSpendingChanges(trx, batch.takeChanges());
        await deleteAccountsSpending(trx, leaving);
        batch.forgetAccounts(leaving);
      } else if (recorded.streamId.startsWith(TRANSACTION_STREAM_PREFIX)) {
        batch.apply(recorded);
      }
    }
    await writeSpendingChanges(trx, batch.takeChanges());
  },
};

/** An edit of the notes, the name or the location moves no money: only the amount, the date, the category, or the provider's values (pending). */
function changesSpending(event: DomainEvent): boolean {
  return event.type !== 'TransactionEdited' || editTouches(event as TransactionEdited, ['amount', 'date', 'categoryId']);
}
