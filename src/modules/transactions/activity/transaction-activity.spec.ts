import type { ProviderValues, TransactionImported } from '../imported-transaction.js';
import { manualTransactionCreated, recordedStream } from './recorded-stream.test-support.js';
import { activityOfStream } from './transaction-activity.js';

const created = manualTransactionCreated({ notes: 'with Sam' });

const provider: ProviderValues = {
  name: 'SQ *CAFE',
  merchantName: 'Cafe',
  amount: '-4.2500',
  date: '2026-11-01',
  categoryId: null,
  paymentChannel: 'in store',
  location: null,
  pending: true,
  authorizedDate: null,
  counterparties: [],
  logoUrl: null,
  website: null,
};
const imported: TransactionImported = {
  type: 'TransactionImported',
  data: { transactionId: 'tx-2', accountId: 'acct-1', source: 'bank_link', linkItemId: 'item-1', linkAccountId: 'la-1', providerTransactionId: 'p-1', isoCurrencyCode: 'USD', replacesTransactionId: null, ...provider },
};

const rows = (entries: ReturnType<typeof activityOfStream>) => entries.map((entry) => [entry.revision, entry.kind, entry.field, 'oldValue' in entry ? entry.oldValue : '-', 'newValue' in entry ? entry.newValue : '-']);

describe('the activity a transaction stream tells', () => {
  it('opens with the values it was created with, records each change, and closes with the values it had', () => {
    const history = recordedStream('tx-1', [
      created,
      { type: 'TransactionEdited', data: { transactionId: 'tx-1', changes: [{ field: 'amount', oldValue: '-12.5', newValue: '-13', locked: true }, { field: 'notes', oldValue: 'with Sam', newValue: null, locked: true }] } },
      { type: 'TagApplied', data: { transactionId: 'tx-1', tagIds: ['tag-a'], resultingTagIds: ['tag-a'], locked: true } },
      // Locks a field without changing it: nothing to show.
      { type: 'TransactionEdited', data: { transactionId: 'tx-1', changes: [{ field: 'name', oldValue: 'Corner Cafe', newValue: 'Corner Cafe', locked: true }] } },
      { type: 'TransactionDeleted', data: { transactionId: 'tx-1', accountId: 'acct-1' } },
    ]);
    expect(rows(activityOfStream(history))).toEqual([
      [0, 'created', 'name', '-', 'Corner Cafe'],
      [0, 'created', 'amount', '-', -12.5],
      [0, 'created', 'date', '-', '2026-11-20'],
      [0, 'created', 'notes', '-', 'with Sam'],
      [1, 'edited', 'amount', -12.5, -13],
      [1, 'edited', 'notes', 'with Sam', null],
      [2, 'edited', 'tags', [], ['tag-a']],
      [4, 'deleted', 'name', 'Corner Cafe', '-'],
      [4, 'deleted', 'amount', -13, '-'],
      [4, 'deleted', 'date', '2026-11-20', '-'],
      [4, 'deleted', 'tags', ['tag-a'], '-'],
    ]);
  });

  it("records an import's provider values, and a departure once: removed by the provider, then retired for its posted one", () => {
    const history = recordedStream('tx-2', [
      [imported, { actor: 'system', requestId: 'sync-1', correlationId: 'link-req' }],
      [{ type: 'TransactionRemoved', data: { transactionId: 'tx-2', accountId: 'acct-1' } }, { actor: 'system' }],
      [{ type: 'TransactionReplaced', data: { transactionId: 'tx-2', accountId: 'acct-1', byTransactionId: 'tx-3' } }, { actor: 'system' }],
    ]);
    const entries = activityOfStream(history);
    expect(rows(entries)).toEqual([
      [0, 'created', 'name', '-', 'SQ *CAFE'],
      [0, 'created', 'merchantName', '-', 'Cafe'],
      [0, 'created', 'amount', '-', -4.25],
      [0, 'created', 'date', '-', '2026-11-01'],
      [0, 'created', 'paymentChannel', '-', 'in store'],
      [1, 'deleted', 'name', 'SQ *CAFE', '-'],
      [1, 'deleted', 'merchantName', 'Cafe', '-'],
      [1, 'deleted', 'amount', -4.25, '-'],
      [1, 'deleted', 'date', '2026-11-01', '-'],
      [1, 'deleted', 'paymentChannel', 'in store', '-'],
    ]);
    expect(entries[0]).toMatchObject({ id: `${history[0].id}:name`, actor: 'system', requestId: 'sync-1', correlationId: 'link-req', createdAt: history[0].metadata.occurredAt });
  });
});
