import { specification } from '../../core/decider-specification.test-support.js';
import type { TransactionCreated, TransactionEdited } from './transaction.js';
import { transactionDecider } from './transaction.decider.js';

const created: TransactionCreated = {
  type: 'TransactionCreated',
  data: {
    transactionId: 't1',
    accountId: 'a1',
    source: 'manual',
    amount: '-4.5',
    date: '2026-11-01',
    name: 'STARBUCKS 1234',
    merchantName: null,
    categoryId: null,
    notes: null,
    paymentChannel: 'in store',
    location: null,
    tagIds: ['tag-a'],
    pending: false,
    authorizedDate: null,
  },
};
const userSetCategory: TransactionEdited = { type: 'TransactionEdited', data: { transactionId: 't1', changes: [{ field: 'categoryId', oldValue: null, newValue: 'mine', locked: true }] } };

const spec = specification(transactionDecider);

describe('transaction decider: a rule’s changes (ApplyRule)', () => {
  it('changes unlocked fields without locking them, and adds tags to the set unlocked', () => {
    spec
      .given([created])
      .when({ type: 'ApplyRule', transactionId: 't1', changes: { categoryId: 'coffee', merchantName: 'Starbucks', addTagIds: ['tag-b'] } })
      .then([
        {
          type: 'TransactionEdited',
          data: {
            transactionId: 't1',
            changes: [
              { field: 'categoryId', oldValue: null, newValue: 'coffee', locked: false },
              { field: 'merchantName', oldValue: null, newValue: 'Starbucks', locked: false },
            ],
          },
        },
        { type: 'TagApplied', data: { transactionId: 't1', tagIds: ['tag-b'], resultingTagIds: ['tag-a', 'tag-b'], locked: false } },
      ]);
  });

  it('leaves a field the user locked as the user set it', () => {
    spec
      .given([created, userSetCategory])
      .when({ type: 'ApplyRule', transactionId: 't1', changes: { categoryId: 'coffee', notes: 'rule' } })
      .then([{ type: 'TransactionEdited', data: { transactionId: 't1', changes: [{ field: 'notes', oldValue: null, newValue: 'rule', locked: false }] } }]);
    spec.given([created, userSetCategory]).when({ type: 'ApplyRule', transactionId: 't1', changes: { categoryId: 'coffee' } }).then([]);
  });

  it('adds no tag to a tag set the user locked', () => {
    spec
      .given([created, { type: 'TagApplied', data: { transactionId: 't1', tagIds: [], resultingTagIds: ['tag-a'], locked: true } }])
      .when({ type: 'ApplyRule', transactionId: 't1', changes: { addTagIds: ['tag-b'] } })
      .then([]);
  });

  it('records nothing when the transaction already has the values, so applying twice changes nothing', () => {
    spec
      .given([created, { type: 'TransactionEdited', data: { transactionId: 't1', changes: [{ field: 'categoryId', oldValue: null, newValue: 'coffee', locked: false }] } }])
      .when({ type: 'ApplyRule', transactionId: 't1', changes: { categoryId: 'coffee', addTagIds: ['tag-a'] } })
      .then([]);
  });

  it('changes nothing on a deleted or unknown transaction', () => {
    spec.given([]).when({ type: 'ApplyRule', transactionId: 't1', changes: { categoryId: 'coffee' } }).then([]);
    spec
      .given([created, { type: 'TransactionDeleted', data: { transactionId: 't1', accountId: 'a1' } }])
      .when({ type: 'ApplyRule', transactionId: 't1', changes: { categoryId: 'coffee' } })
      .then([]);
  });
});
