import type { FieldChange, TransactionEvent } from '../../../transactions/transaction.js';
import { mayChangeRecurringStreams } from './recurring-transactions.source.js';

const edited = (...fields: FieldChange['field'][]): TransactionEvent => ({
  type: 'TransactionEdited',
  data: { transactionId: 't1', changes: fields.map((field) => ({ field, oldValue: null, newValue: null, locked: true })) as FieldChange[] },
});

describe('which transaction events can change recurring streams', () => {
  it('an edit of what detection reads does, an edit of notes, channel or location alone does not', () => {
    for (const field of ['name', 'merchantName', 'amount', 'date', 'categoryId'] as const) expect([field, mayChangeRecurringStreams(edited(field))]).toEqual([field, true]);
    expect(mayChangeRecurringStreams(edited('notes', 'paymentChannel', 'location'))).toBe(false);
    expect(mayChangeRecurringStreams(edited('notes', 'amount'))).toBe(true);
  });

  it("a sync's edit (the provider's values, which may post a pending one), a creation and a departure do; tags do not", () => {
    const sync = edited('notes');
    expect(mayChangeRecurringStreams({ ...sync, data: { ...sync.data, provider: {} } } as TransactionEvent)).toBe(true);
    expect(mayChangeRecurringStreams({ type: 'TransactionDeleted', data: { transactionId: 't1', accountId: 'a1' } })).toBe(true);
    expect(mayChangeRecurringStreams({ type: 'TagApplied', data: { transactionId: 't1', tagIds: ['g'], resultingTagIds: ['g'], locked: true } })).toBe(false);
    expect(mayChangeRecurringStreams({ type: 'TagRemoved', data: { transactionId: 't1', tagIds: ['g'], resultingTagIds: [], locked: true } })).toBe(false);
  });
});
