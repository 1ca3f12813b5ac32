import { DomainRuleError, NotFoundError } from '../../core/errors.js';
import { specification } from '../../core/decider-specification.test-support.js';
import type { TransactionCreated } from './transaction.js';
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
