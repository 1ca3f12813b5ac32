import { foldEvents } from '../../core/decider.js';
import { specification } from '../../core/decider-specification.test-support.js';
import type { ProviderValues, TransactionImported } from './imported-transaction.js';
import type { TransactionEdited, TransactionEvent } from './transaction.js';
import { transactionDecider } from './transaction.decider.js';
import { carryOverOf } from './transaction-import.decider.js';

const providerValues: ProviderValues = {
  name: 'SQ *BLUE BOTTLE 0421',
  merchantName: null,
  amount: '-6.5',
  date: '2026-11-01',
  categoryId: 'cat-coffee',
  paymentChannel: 'in store',
  location: null,
  pending: true,
  authorizedDate: '2026-11-01',
  counterparties: [{ name: 'Square', type: 'payment_terminal', logoUrl: null, website: 'squareup.com', entityId: null, confidenceLevel: 'HIGH' }],
  logoUrl: null,
  website: null,
};

const imported = (transactionId: string, overrides: Partial<TransactionImported['data']> = {}): TransactionImported => ({
  type: 'TransactionImported',
  data: {
    transactionId,
    accountId: 'acct-1',
    source: 'bank_link',
    linkItemId: 'item-1',
    linkAccountId: 'link-acct-1',
    providerTransactionId: `p-${transactionId}`,
    isoCurrencyCode: 'USD',
    replacesTransactionId: null,
    ...providerValues,
    ...overrides,
  },
});

const pending = imported('pending-1');
const userEdit: TransactionEdited = {
  type: 'TransactionEdited',
  data: {
    transactionId: 'pending-1',
    changes: [
      { field: 'name', oldValue: 'SQ *BLUE BOTTLE 0421', newValue: 'Coffee with Ana', locked: true },
      { field: 'notes', oldValue: null, newValue: 'expense it', locked: true },
    ],
  },
};
const userTags: TransactionEvent = { type: 'TagApplied', data: { transactionId: 'pending-1', tagIds: ['tag-work'], resultingTagIds: ['tag-work'], locked: true } };

const spec = specification(transactionDecider);

describe('importing provider transactions', () => {
  it('imports a new provider transaction, and importing it again appends nothing', () => {
    spec.given([]).when({ type: 'ImportTransaction', data: pending.data, carryOver: null }).then([pending]);
    spec.given([pending]).when({ type: 'ImportTransaction', data: pending.data, carryOver: null }).then([]);
  });

  it("changes only the fields the user has not locked, records the provider's values, and leaves notes and tags alone", () => {
    const enriched: ProviderValues = { ...providerValues, name: 'Blue Bottle Coffee', merchantName: 'Blue Bottle', amount: '-7' };
    spec
      .given([pending, userEdit, userTags])
      .when({ type: 'UpdateFromProvider', transactionId: 'pending-1', provider: enriched })
      .then([
        {
          type: 'TransactionEdited',
          data: {
            transactionId: 'pending-1',
            changes: [
              { field: 'merchantName', oldValue: null, newValue: 'Blue Bottle', locked: false },
              { field: 'amount', oldValue: '-6.5', newValue: '-7', locked: false },
            ],
            provider: enriched,
          },
        },
      ]);
  });

  it('records a change the user locked away, so that restoring the field takes the newest provider value', () => {
    const renamed: ProviderValues = { ...providerValues, name: 'Blue Bottle Coffee' };
    const update: TransactionEdited = { type: 'TransactionEdited', data: { transactionId: 'pending-1', changes: [], provider: renamed } };
    spec.given([pending, userEdit]).when({ type: 'UpdateFromProvider', transactionId: 'pending-1', provider: renamed }).then([update]);
    spec
      .given([pending, userEdit, update])
      .when({ type: 'EditTransaction', transactionId: 'pending-1', patch: { name: null } })
      .then([{ type: 'TransactionEdited', data: { transactionId: 'pending-1', changes: [{ field: 'name', oldValue: 'Coffee with Ana', newValue: 'Blue Bottle Coffee', locked: false }] } }]);
  });

  it('appends nothing for a modification already applied, or for a transaction it never imported', () => {
    spec.given([pending]).when({ type: 'UpdateFromProvider', transactionId: 'pending-1', provider: { ...providerValues } }).then([]);
    spec.given([]).when({ type: 'UpdateFromProvider', transactionId: 'pending-1', provider: providerValues }).then([]);
  });

  it('removes a transaction the provider dropped once; its stream stays and it can no longer be edited', () => {
    const removed: TransactionEvent = { type: 'TransactionRemoved', data: { transactionId: 'pending-1', accountId: 'acct-1' } };
    spec.given([pending]).when({ type: 'RemoveImportedTransaction', transactionId: 'pending-1' }).then([removed]);
    spec.given([pending, removed]).when({ type: 'RemoveImportedTransaction', transactionId: 'pending-1' }).then([]);
    spec.given([]).when({ type: 'RemoveImportedTransaction', transactionId: 'pending-1' }).then([]);
    spec.given([pending, removed]).when({ type: 'UpdateFromProvider', transactionId: 'pending-1', provider: { ...providerValues, amount: '-1' } }).then([]);
    spec.given([pending, removed]).when({ type: 'EditTransaction', transactionId: 'pending-1', patch: { notes: 'x' } }).thenThrows((error) => expect(error).toBeDefined());
  });

  it('never deletes a provider transaction on the user’s request', () => {
    spec.given([pending]).when({ type: 'DeleteTransaction', transactionId: 'pending-1' }).then([]);
  });
});

describe('pending → posted', () => {
  const posted = imported('posted-1', { pending: false, amount: '-7.8', date: '2026-11-03', replacesTransactionId: 'pending-1' });

  it("carries the pending transaction's locked fields, notes and tags onto the posted one, as system edits that name where they came from", () => {
    const carryOver = carryOverOf('pending-1', foldEvents(transactionDecider, [pending, userEdit, userTags]));
    spec
      .given([])
      .when({ type: 'ImportTransaction', data: posted.data, carryOver })
      .then([
        posted,
        {
          type: 'TransactionEdited',
          data: {
            transactionId: 'posted-1',
            changes: [
              { field: 'name', oldValue: 'SQ *BLUE BOTTLE 0421', newValue: 'Coffee with Ana', locked: true },
              { field: 'notes', oldValue: null, newValue: 'expense it', locked: true },
            ],
            carriedFromTransactionId: 'pending-1',
          },
        },
        { type: 'TagApplied', data: { transactionId: 'posted-1', tagIds: ['tag-work'], resultingTagIds: ['tag-work'], locked: true } },
      ]);
  });

  it('keeps the carried values locked, so a later provider update of the posted one leaves them alone', () => {
    const carryOver = carryOverOf('pending-1', foldEvents(transactionDecider, [pending, userEdit, userTags]));
    const history = transactionDecider.decide({ type: 'ImportTransaction', data: posted.data, carryOver }, transactionDecider.initialState());
    const state = foldEvents(transactionDecider, history);
    expect(state.current).toMatchObject({ name: 'Coffee with Ana', notes: 'expense it', tagIds: ['tag-work'], amount: '-7.8' });
    expect(state.original).toMatchObject({ name: 'SQ *BLUE BOTTLE 0421', notes: null, tagIds: [] });
    spec
      .given(history)
      .when({ type: 'UpdateFromProvider', transactionId: 'posted-1', provider: { ...posted.data, pending: false, name: 'Blue Bottle Coffee' } })
      .then([{ type: 'TransactionEdited', data: { transactionId: 'posted-1', changes: [], provider: { ...providerValues, pending: false, amount: '-7.8', date: '2026-11-03', name: 'Blue Bottle Coffee' } } }]);
  });

  it('carries nothing when the user left the pending transaction as the provider sent it', () => {
    expect(carryOverOf('pending-1', foldEvents(transactionDecider, [pending]))).toBeNull();
    expect(carryOverOf('pending-1', transactionDecider.initialState())).toBeNull();
    spec.given([]).when({ type: 'ImportTransaction', data: posted.data, carryOver: null }).then([posted]);
  });

  it('retires the pending transaction with a pointer to its posted one, once, even after the provider removed it', () => {
    const replaced: TransactionEvent = { type: 'TransactionReplaced', data: { transactionId: 'pending-1', accountId: 'acct-1', byTransactionId: 'posted-1' } };
    const removed: TransactionEvent = { type: 'TransactionRemoved', data: { transactionId: 'pending-1', accountId: 'acct-1' } };
    spec.given([pending, userEdit]).when({ type: 'RetireReplacedTransaction', transactionId: 'pending-1', byTransactionId: 'posted-1' }).then([replaced]);
    spec.given([pending, removed]).when({ type: 'RetireReplacedTransaction', transactionId: 'pending-1', byTransactionId: 'posted-1' }).then([replaced]);
    spec.given([pending, replaced]).when({ type: 'RetireReplacedTransaction', transactionId: 'pending-1', byTransactionId: 'posted-1' }).then([]);
    spec.given([pending, replaced]).when({ type: 'RemoveImportedTransaction', transactionId: 'pending-1' }).then([]);
    spec.given([]).when({ type: 'RetireReplacedTransaction', transactionId: 'pending-1', byTransactionId: 'posted-1' }).then([]);
  });

  it('carries the user values of a pending transaction the provider removed before its posted one arrived', () => {
    const removed: TransactionEvent = { type: 'TransactionRemoved', data: { transactionId: 'pending-1', accountId: 'acct-1' } };
    expect(carryOverOf('pending-1', foldEvents(transactionDecider, [pending, userEdit, removed]))).toEqual({
      fromTransactionId: 'pending-1',
      values: { name: 'Coffee with Ana', notes: 'expense it' },
      tagIds: [],
      tagsLocked: false,
    });
  });
});
