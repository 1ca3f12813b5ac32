import { unhandled } from '../../src/core/exhaustive.js';
import { type Insertable, sql } from 'kysely';
import type { RecordedEvent } from '../../src/core/events.js';
import type { ProjectionDefinition } from '../../src/infrastructure/projections/projection.js';
import { ACCOUNT_STREAM_PREFIX, type AccountDeleted } from '../../src/modules/accounts/account.js';
import {
  type EditableField,
  LOCKED_FIELD_OF,
  TRANSACTION_STREAM_PREFIX,
  type TransactionEvent,
} from '../../src/modules/transactions/transaction.js';
import { createTransactionsTable, type TransactionsTable } from './transactions.table.js';

const COLUMN_OF: Record<EditableField, string> = {
  name: 'name',
  merchantName: 'merchant_name',
  amount: 'amount',
  date: 'date',
  categoryId: 'category_id',
  notes: 'notes',
  paymentChannel: 'payment_channel',
  location: 'location',
  tagIds: 'tag_ids',
};

/** `transactions`: the live transactions of every account, in the list's keyset order. */
export const transactionsProjection: ProjectionDefinition = {
  name: 'transactions',
  version: 1,
  tables: ['transactions'],
  eventTypes: ['TransactionCreated', 'TransactionEdited', 'TransactionDeleted', 'AccountDeleted'],
  createTables: createTransactionsTable,
  async apply(trx, events) {
    // Consecutive creations go in one multi-row INSERT: a replay of $all is mostly creations.
    let pendingRows: Insertable<TransactionsTable>[] = [];
    const flush = async () => {
      if (pendingRows.length === 0) return;
      await trx.insertInto('transactions').values(pendingRows).onConflict((conflict) => conflict.column('id').doNothing()).execute();
      pendingRows = [];
    };
    for (const recorded of events) {
      if (recorded.type !== 'TransactionCreated') await flush();
      if (recorded.streamId.startsWith(ACCOUNT_STREAM_PREFIX)) {
        if (recorded.type === 'AccountDeleted') {
          await trx.deleteFrom('transactions').where('account_id', '=', (recorded.data as AccountDeleted['data']).accountId).execute();
        }
        continue;
      }
      if (!recorded.streamId.startsWith(TRANSACTION_STREAM_PREFIX)) continue;
      const { type, data } = recorded as RecordedEvent<TransactionEvent>;
      const event = { type, data } as TransactionEvent;
      const at = new Date(recorded.metadata.occurredAt);
      const revision = Number(recorded.revision);
      switch (event.type) {
        case 'TransactionCreated':
          pendingRows.push({
            id: event.data.transactionId,
            user_id: recorded.metadata.userId,
            account_id: event.data.accountId,
            source: event.data.source,
            amount: event.data.amount,
            date: event.data.date,
            authorized_date: event.data.authorizedDate,
            name: event.data.name,
            merchant_name: event.data.merchantName,
            category_id: event.data.categoryId,
            notes: event.data.notes,
            payment_channel: event.data.paymentChannel,
            pending: event.data.pending,
            location: event.data.location === null ? null : JSON.stringify(event.data.location) as never,
            counterparties: null,
            tag_ids: event.data.tagIds,
            locked_fields: [],
            link_account_id: null,
            logo_url: null,
            website: null,
            created_at: at,
            updated_at: at,
            revision,
          });
          if (pendingRows.length >= 1000) await flush();
          break;
        case 'TransactionEdited': {
          const values: Record<string, unknown> = { updated_at: at, revision };
          for (const change of event.data.changes) {
            values[COLUMN_OF[change.field]] = change.field === 'location' && change.newValue !== null ? JSON.stringify(change.newValue) : change.newValue;
          }
          const lock = event.data.changes.filter((change) => change.locked).map((change) => LOCKED_FIELD_OF[change.field]);
          const unlock = event.data.changes.filter((change) => !change.locked).map((change) => LOCKED_FIELD_OF[change.field]);
          values.locked_fields = sql`array(
            SELECT DISTINCT field FROM unnest(locked_fields || ${lock}::text[]) AS field
             WHERE field <> ALL(${unlock}::text[]) ORDER BY field)`;
          await trx.updateTable('transactions').set(values).where('id', '=', event.data.transactionId).where('revision', '<', revision).execute();
          break;
        }
        case 'TransactionDeleted':
          await trx.deleteFrom('transactions').where('id', '=', event.data.transactionId).execute();
          break;
        default: {
          unhandled(event);
          break;
        }
      }
    }
    await flush();
  },
};
