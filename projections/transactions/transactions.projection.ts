import type { Insertable } from 'kysely';
import { unhandled } from '../../src/core/exhaustive.js';
import type { RecordedEvent } from '../../src/core/events.js';
import type { ProjectionDefinition } from '../../src/infrastructure/projections/projection.js';
import { departingAccountIds, TRANSACTION_ACCOUNT_DEPARTURE_EVENT_TYPES } from '../../src/modules/accounts/account-departures.js';
import { counterpartyRowOf, type TransactionImported } from '../../src/modules/transactions/imported-transaction.js';
import { type TagApplied, type TagRemoved, TRANSACTION_STREAM_PREFIX, type TransactionCreated, type TransactionEdited, type TransactionEvent } from '../../src/modules/transactions/transaction.js';
import { deleteTransactions, insertTransactions, type MergedEdit, mergeColumns, mergeEdit, updateTransactions } from './transaction-row-writes.js';
import type { SplitPart } from '../../src/modules/transactions/splits/split.js';
import { createTransactionsTable, type TransactionsTable } from './transactions.table.js';

/**
 * `transactions`: the live transactions of every account, in the list's keyset order. A batch is
 * applied as three statements — its creations, then its edits (folded per transaction), then its
 * deletions — which is the events' own order for each transaction (a stream is created, edited,
 * then deleted); an account's departure (deleted, or disconnected alone or with its item), which
 * reaches across streams, first writes what came before it.
 */
export const transactionsProjection: ProjectionDefinition = {
  name: 'transactions',
  // v2: tags applied and removed by events of their own (TagApplied, TagRemoved), and a GIN index on tag_ids.
  // v3: the transfer's other side and the splits (decision 0043).
  version: 3,
  // Inline: written in the transaction of every append, so a write's answer is built from it (decision 0033).
  mode: 'inline',
  tables: ['transactions'],
  eventTypes: [
    'TransactionCreated',
    'TransactionImported',
    'TransactionEdited',
    'TransactionDeleted',
    'TransactionRemoved',
    'TransactionReplaced',
    'TagApplied',
    'TagRemoved',
    'TransferPaired',
    'TransferUnpaired',
    'TransactionSplit',
    'TransactionSplitsCleared',
    ...TRANSACTION_ACCOUNT_DEPARTURE_EVENT_TYPES,
  ],
  createTables: createTransactionsTable,
  async apply(trx, events) {
    let created: Insertable<TransactionsTable>[] = [];
    let edited = new Map<string, MergedEdit>();
    let deleted: string[] = [];
    const flush = async () => {
      await insertTransactions(trx, created);
      await updateTransactions(trx, edited);
      await deleteTransactions(trx, deleted);
      created = [];
      edited = new Map();
      deleted = [];
    };
    for (const recorded of events) {
      const departing = departingAccountIds(recorded);
      if (departing) {
        await flush();
        if (departing.length > 0) await trx.deleteFrom('transactions').where('account_id', 'in', departing).execute();
        continue;
      }
      if (!recorded.streamId.startsWith(TRANSACTION_STREAM_PREFIX)) continue;
      const event = { type: recorded.type, data: recorded.data } as TransactionEvent;
      const at = new Date(recorded.metadata.occurredAt);
      switch (event.type) {
        case 'TransactionCreated':
          created.push(rowOf(event, recorded, at));
          break;
        case 'TransactionImported':
          created.push(importedRowOf(event, recorded, at));
          break;
        case 'TransactionEdited':
          mergeEdit(edited, event, Number(recorded.revision), at);
          break;
        case 'TransactionDeleted':
        case 'TransactionRemoved':
        case 'TransactionReplaced':
          deleted.push(event.data.transactionId);
          break;
        case 'TagApplied':
        case 'TagRemoved':
          mergeEdit(edited, asTagSetEdit(event), Number(recorded.revision), at);
          break;
        case 'TransferPaired':
          mergeColumns(edited, event.data.transactionId, { transfer_transaction_id: event.data.counterpart.transactionId, transfer_account_id: event.data.counterpart.accountId }, Number(recorded.revision), at);
          break;
        case 'TransferUnpaired':
          mergeColumns(edited, event.data.transactionId, { transfer_transaction_id: null, transfer_account_id: null }, Number(recorded.revision), at);
          break;
        case 'TransactionSplit':
          mergeColumns(edited, event.data.transactionId, { splits: event.data.splits.map(storedSplitPartOf) }, Number(recorded.revision), at);
          break;
        case 'TransactionSplitsCleared':
          mergeColumns(edited, event.data.transactionId, { splits: [] }, Number(recorded.revision), at);
          break;
        default:
          unhandled(event);
      }
    }
    await flush();
  },
};

function importedRowOf(event: TransactionImported, recorded: RecordedEvent, at: Date): Insertable<TransactionsTable> {
  const { data } = event;
  return {
    ...rowOf({ type: 'TransactionCreated', data: { ...data, source: 'manual', notes: null, tagIds: [] } }, recorded, at),
    source: data.source,
    counterparties: JSON.stringify(data.counterparties.map(counterpartyRowOf)) as never,
    link_account_id: data.linkAccountId,
    logo_url: data.logoUrl,
    website: data.website,
  };
}

function storedSplitPartOf(part: SplitPart) {
  return { id: part.splitId, amount: part.amount, category_id: part.categoryId, notes: part.notes };
}

function asTagSetEdit(event: TagApplied | TagRemoved): TransactionEdited {
  const { transactionId, resultingTagIds, locked } = event.data;
  return { type: 'TransactionEdited', data: { transactionId, changes: [{ field: 'tagIds', oldValue: [], newValue: resultingTagIds, locked }] } };
}

function rowOf(event: TransactionCreated, recorded: RecordedEvent, at: Date): Insertable<TransactionsTable> {
  return {
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
    location: event.data.location === null ? null : (JSON.stringify(event.data.location) as never),
    counterparties: null,
    tag_ids: event.data.tagIds,
    locked_fields: [],
    link_account_id: null,
    logo_url: null,
    website: null,
    transfer_transaction_id: null,
    transfer_account_id: null,
    splits: [],
    created_at: at,
    updated_at: at,
    revision: Number(recorded.revision),
  };
}
