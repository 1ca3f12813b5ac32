import { DomainRuleError, NotFoundError } from '../../core/errors.js';
import { specification } from '../../core/decider-specification.test-support.js';
import type { TagApplied, TransactionCreated } from './transaction.js';
import { transactionDecider } from './transaction.decider.js';

const created: TransactionCreated = {
  type: 'TransactionCreated',
  data: {
    transactionId: 't1',
    accountId: 'a1',
    source: 'manual',
    amount: '-12.5',
    date: '2026-11-01',
    name: 'Corner Cafe',
    merchantName: null,
    categoryId: null,
    notes: null,
    paymentChannel: 'in store',
    location: null,
    tagIds: [],
    pending: false,
    authorizedDate: null,
  },
};

const spec = specification(transactionDecider);

describe('transaction decider', () => {
  it('records each written field with its old and new value and locks it', () => {
    spec
      .given([created])
      .when({ type: 'EditTransaction', transactionId: 't1', patch: { amount: '-13', notes: 'lunch' } })
      .then([
        {
          type: 'TransactionEdited',
          data: {
            transactionId: 't1',
            changes: [
              { field: 'amount', oldValue: '-12.5', newValue: '-13', locked: true },
              { field: 'notes', oldValue: null, newValue: 'lunch', locked: true },
            ],
          },
        },
      ]);
  });

  it('restores the value the transaction was created with when a field is sent as null, and unlocks it', () => {
    spec
      .given([created, { type: 'TransactionEdited', data: { transactionId: 't1', changes: [{ field: 'name', oldValue: 'Corner Cafe', newValue: 'Cafe', locked: true }] } }])
      .when({ type: 'EditTransaction', transactionId: 't1', patch: { name: null } })
      .then([{ type: 'TransactionEdited', data: { transactionId: 't1', changes: [{ field: 'name', oldValue: 'Cafe', newValue: 'Corner Cafe', locked: false }] } }]);
  });

  it('locks a field written with its current value, and then has nothing left to change', () => {
    spec
      .given([created])
      .when({ type: 'EditTransaction', transactionId: 't1', patch: { name: 'Corner Cafe' } })
      .then([{ type: 'TransactionEdited', data: { transactionId: 't1', changes: [{ field: 'name', oldValue: 'Corner Cafe', newValue: 'Corner Cafe', locked: true }] } }]);
    spec
      .given([created, { type: 'TransactionEdited', data: { transactionId: 't1', changes: [{ field: 'name', oldValue: 'Corner Cafe', newValue: 'Corner Cafe', locked: true }] } }])
      .when({ type: 'EditTransaction', transactionId: 't1', patch: { name: 'Corner Cafe' } })
      .then([]);
  });

  it('does not edit a deleted or unknown transaction', () => {
    spec.given([]).when({ type: 'EditTransaction', transactionId: 't1', patch: { name: 'x' } }).thenThrows((error) => expect(error).toBeInstanceOf(NotFoundError));
    spec
      .given([created, { type: 'TransactionDeleted', data: { transactionId: 't1', accountId: 'a1' } }])
      .when({ type: 'EditTransaction', transactionId: 't1', patch: { name: 'x' } })
      .thenThrows((error) => expect(error).toBeInstanceOf(NotFoundError));
  });

  it('deletes idempotently', () => {
    spec.given([created]).when({ type: 'DeleteTransaction', transactionId: 't1' }).then([{ type: 'TransactionDeleted', data: { transactionId: 't1', accountId: 'a1' } }]);
    spec.given([created, { type: 'TransactionDeleted', data: { transactionId: 't1', accountId: 'a1' } }]).when({ type: 'DeleteTransaction', transactionId: 't1' }).then([]);
    spec.given([]).when({ type: 'DeleteTransaction', transactionId: 't1' }).then([]);
  });

  it('refuses to create the same transaction twice', () => {
    spec.given([created]).when({ type: 'CreateTransaction', data: created.data }).thenThrows((error) => expect((error as DomainRuleError).code).toBe('TRANSACTION_EXISTS'));
  });
});

describe('transaction decider: tags', () => {
  const tagged: TransactionCreated = { ...created, data: { ...created.data, tagIds: ['g1', 'g2'] } };

  it('replaces the set as a removal then an application, each with the set after it, and locks tags', () => {
    spec
      .given([tagged])
      .when({ type: 'EditTransaction', transactionId: 't1', patch: { tagIds: ['g2', 'g3'] } })
      .then([
        { type: 'TagRemoved', data: { transactionId: 't1', tagIds: ['g1'], resultingTagIds: ['g2'], locked: true } },
        { type: 'TagApplied', data: { transactionId: 't1', tagIds: ['g3'], resultingTagIds: ['g2', 'g3'], locked: true } },
      ]);
  });

  it('keeps other fields in TransactionEdited and tags in their own events', () => {
    spec
      .given([created])
      .when({ type: 'EditTransaction', transactionId: 't1', patch: { notes: 'x', tagIds: ['g1'] } })
      .then([
        { type: 'TransactionEdited', data: { transactionId: 't1', changes: [{ field: 'notes', oldValue: null, newValue: 'x', locked: true }] } },
        { type: 'TagApplied', data: { transactionId: 't1', tagIds: ['g1'], resultingTagIds: ['g1'], locked: true } },
      ]);
  });

  it('locks tags written with the current set, and then has nothing left to change', () => {
    const lockOnly: TagApplied = { type: 'TagApplied', data: { transactionId: 't1', tagIds: [], resultingTagIds: ['g1', 'g2'], locked: true } };
    spec.given([tagged]).when({ type: 'EditTransaction', transactionId: 't1', patch: { tagIds: ['g2', 'g1'] } }).then([lockOnly]);
    spec.given([tagged, lockOnly]).when({ type: 'EditTransaction', transactionId: 't1', patch: { tagIds: ['g1', 'g2'] } }).then([]);
  });

  it('restores the original set with null and unlocks tags', () => {
    const applied: TagApplied = { type: 'TagApplied', data: { transactionId: 't1', tagIds: ['g3'], resultingTagIds: ['g1', 'g2', 'g3'], locked: true } };
    spec
      .given([tagged, applied])
      .when({ type: 'EditTransaction', transactionId: 't1', patch: { tagIds: null } })
      .then([{ type: 'TagRemoved', data: { transactionId: 't1', tagIds: ['g3'], resultingTagIds: ['g1', 'g2'], locked: false } }]);
  });

  it('replays tag changes recorded by older streams as TransactionEdited of tagIds', () => {
    const legacy = { type: 'TransactionEdited' as const, data: { transactionId: 't1', changes: [{ field: 'tagIds' as const, oldValue: [], newValue: ['g1'], locked: true }] } };
    spec.given([created, legacy]).when({ type: 'ChangeTransactionTags', transactionId: 't1', add: [], remove: ['g1'], lock: false }).then([
      { type: 'TagRemoved', data: { transactionId: 't1', tagIds: ['g1'], resultingTagIds: [], locked: true } },
    ]);
  });

  it('bulk changes record only a changed set, lock it, and skip a transaction that is gone', () => {
    spec
      .given([tagged])
      .when({ type: 'ChangeTransactionTags', transactionId: 't1', add: ['g3'], remove: ['g1'], lock: true })
      .then([
        { type: 'TagRemoved', data: { transactionId: 't1', tagIds: ['g1'], resultingTagIds: ['g2'], locked: true } },
        { type: 'TagApplied', data: { transactionId: 't1', tagIds: ['g3'], resultingTagIds: ['g2', 'g3'], locked: true } },
      ]);
    spec.given([tagged]).when({ type: 'ChangeTransactionTags', transactionId: 't1', add: ['g1'], remove: ['g9'], lock: true }).then([]);
    spec.given([]).when({ type: 'ChangeTransactionTags', transactionId: 't1', add: ['g1'], remove: [], lock: true }).then([]);
    spec.given([tagged, { type: 'TransactionDeleted', data: { transactionId: 't1', accountId: 'a1' } }]).when({ type: 'ChangeTransactionTags', transactionId: 't1', add: [], remove: ['g1'], lock: false }).then([]);
  });

  it("a deleted tag's fan-out leaves the lock as it was", () => {
    spec
      .given([tagged])
      .when({ type: 'ChangeTransactionTags', transactionId: 't1', add: [], remove: ['g2'], lock: false })
      .then([{ type: 'TagRemoved', data: { transactionId: 't1', tagIds: ['g2'], resultingTagIds: ['g1'], locked: false } }]);
  });
});
