import { DomainRuleError, NotFoundError, ValidationFailedError } from '../../core/errors.js';
import { specification } from '../../core/decider-specification.test-support.js';
import type { ProviderValues, TransactionImported } from './imported-transaction.js';
import type { TransactionSplit } from './splits/split.js';
import type { TransactionCreated } from './transaction.js';
import { transactionDecider } from './transaction.decider.js';
import type { TransferPaired } from './transfers/transfer.js';

const spec = specification(transactionDecider);

const created: TransactionCreated = {
  type: 'TransactionCreated',
  data: {
    transactionId: 'checking-out',
    accountId: 'checking',
    source: 'manual',
    amount: '-500',
    date: '2026-11-02',
    name: 'Transfer to savings',
    merchantName: null,
    categoryId: null,
    notes: null,
    paymentChannel: null,
    location: null,
    tagIds: [],
    pending: false,
    authorizedDate: null,
  },
};
const savings = { transactionId: 'savings-in', accountId: 'savings', amount: '500' };
const paired: TransferPaired = { type: 'TransferPaired', data: { transactionId: 'checking-out', counterpart: { transactionId: 'savings-in', accountId: 'savings' }, pairedBy: 'automatic' } };

const part = (splitId: string, amount: string, categoryId: string | null = null) => ({ splitId, amount, categoryId, notes: null });
const split: TransactionSplit = { type: 'TransactionSplit', data: { transactionId: 'checking-out', splits: [part('s1', '-300', 'rent'), part('s2', '-200', 'food')], previousSplits: [] } };

describe('transfers', () => {
  it('pairs a side with a mirrored transaction in another account, once', () => {
    spec.given([created]).when({ type: 'PairTransfer', transactionId: 'checking-out', counterpart: savings, pairedBy: 'automatic' }).then([paired]);
    spec.given([created, paired]).when({ type: 'PairTransfer', transactionId: 'checking-out', counterpart: savings, pairedBy: 'user' }).then([]);
  });

  it('refuses amounts that do not mirror and a counterpart in the same account', () => {
    const notAPair = (error: unknown) => expect(error).toMatchObject({ code: 'NOT_A_TRANSFER_PAIR', status: 400 });
    spec.given([created]).when({ type: 'PairTransfer', transactionId: 'checking-out', counterpart: { ...savings, amount: '499.99' }, pairedBy: 'user' }).thenThrows(notAPair);
    spec.given([created]).when({ type: 'PairTransfer', transactionId: 'checking-out', counterpart: { ...savings, amount: '-500' }, pairedBy: 'user' }).thenThrows(notAPair);
    spec.given([created]).when({ type: 'PairTransfer', transactionId: 'checking-out', counterpart: { ...savings, accountId: 'checking' }, pairedBy: 'user' }).thenThrows((error) => expect(error).toBeInstanceOf(DomainRuleError));
  });

  it('never pairs automatically a side already paired, or a pair the user undid; the user may', () => {
    const other = { transactionId: 'other-in', accountId: 'brokerage', amount: '500' };
    spec.given([created, paired]).when({ type: 'PairTransfer', transactionId: 'checking-out', counterpart: other, pairedBy: 'automatic' }).then([]);
    const undone = { type: 'TransferUnpaired' as const, data: { transactionId: 'checking-out', counterpart: { transactionId: 'savings-in', accountId: 'savings' }, reason: 'user' as const } };
    spec.given([created, paired]).when({ type: 'UnpairTransfer', transactionId: 'checking-out', reason: 'user' }).then([undone]);
    spec.given([created, paired, undone]).when({ type: 'PairTransfer', transactionId: 'checking-out', counterpart: savings, pairedBy: 'automatic' }).then([]);
    spec
      .given([created, paired, undone])
      .when({ type: 'PairTransfer', transactionId: 'checking-out', counterpart: savings, pairedBy: 'user' })
      .then([{ ...paired, data: { ...paired.data, pairedBy: 'user' } }]);
  });

  it('a pairing by hand replaces the pair the side was in', () => {
    const other = { transactionId: 'other-in', accountId: 'brokerage', amount: '500' };
    spec
      .given([created, paired])
      .when({ type: 'PairTransfer', transactionId: 'checking-out', counterpart: other, pairedBy: 'user' })
      .then([
        { type: 'TransferUnpaired', data: { transactionId: 'checking-out', counterpart: { transactionId: 'savings-in', accountId: 'savings' }, reason: 'user' } },
        { type: 'TransferPaired', data: { transactionId: 'checking-out', counterpart: { transactionId: 'other-in', accountId: 'brokerage' }, pairedBy: 'user' } },
      ]);
  });

  it('leaves a pair only when it is with the transaction named', () => {
    spec.given([created, paired]).when({ type: 'UnpairTransfer', transactionId: 'checking-out', reason: 'counterpartGone', onlyFrom: 'someone-else' }).then([]);
    spec.given([created]).when({ type: 'UnpairTransfer', transactionId: 'checking-out', reason: 'user' }).then([]);
  });

  it('a user pairing a transaction that is gone is a 404; an automatic one decides nothing', () => {
    const deleted = { type: 'TransactionDeleted' as const, data: { transactionId: 'checking-out', accountId: 'checking' } };
    spec.given([created, deleted]).when({ type: 'PairTransfer', transactionId: 'checking-out', counterpart: savings, pairedBy: 'user' }).thenThrows((error) => expect(error).toBeInstanceOf(NotFoundError));
    spec.given([created, deleted]).when({ type: 'PairTransfer', transactionId: 'checking-out', counterpart: savings, pairedBy: 'automatic' }).then([]);
  });
});

describe('splits', () => {
  it('splits into parts that sum exactly to the amount, and records nothing for the same parts again', () => {
    spec.given([created]).when({ type: 'SplitTransaction', transactionId: 'checking-out', splits: split.data.splits }).then([split]);
    const sameAgain = [part('x1', '-300.0', 'rent'), part('x2', '-200', 'food')];
    spec.given([created, split]).when({ type: 'SplitTransaction', transactionId: 'checking-out', splits: sameAgain }).then([]);
  });

  it('refuses parts that do not sum, lack the sign, or are too few or too many, at the offending path', () => {
    const issues = (paths: unknown[]) => (error: unknown) => {
      expect(error).toBeInstanceOf(ValidationFailedError);
      expect((error as ValidationFailedError).issues.map((issue) => issue.path)).toEqual(paths);
    };
    spec.given([created]).when({ type: 'SplitTransaction', transactionId: 'checking-out', splits: [part('a', '-300'), part('b', '-199.99')] }).thenThrows(issues([['splits']]));
    spec.given([created]).when({ type: 'SplitTransaction', transactionId: 'checking-out', splits: [part('a', '-600'), part('b', '100')] }).thenThrows(issues([['splits', 1, 'amount']]));
    spec.given([created]).when({ type: 'SplitTransaction', transactionId: 'checking-out', splits: [part('a', '-500')] }).thenThrows(issues([['splits']]));
    const many = Array.from({ length: 51 }, (_, index) => part(`p${index}`, '-1'));
    spec.given([created]).when({ type: 'SplitTransaction', transactionId: 'checking-out', splits: many }).thenThrows(issues([['splits']]));
  });

  it('removes the split for an empty list, and records nothing when there was none', () => {
    spec
      .given([created, split])
      .when({ type: 'SplitTransaction', transactionId: 'checking-out', splits: [] })
      .then([{ type: 'TransactionSplitsCleared', data: { transactionId: 'checking-out', reason: 'user', previousSplits: split.data.splits } }]);
    spec.given([created]).when({ type: 'SplitTransaction', transactionId: 'checking-out', splits: [] }).then([]);
  });
});

describe('a new amount', () => {
  it("clears the splits and leaves the transfer, after the user's edit", () => {
    spec
      .given([created, split, paired])
      .when({ type: 'EditTransaction', transactionId: 'checking-out', patch: { amount: '-450' } })
      .then([
        { type: 'TransactionEdited', data: { transactionId: 'checking-out', changes: [{ field: 'amount', oldValue: '-500', newValue: '-450', locked: true }] } },
        { type: 'TransactionSplitsCleared', data: { transactionId: 'checking-out', reason: 'amountChanged', previousSplits: split.data.splits } },
        { type: 'TransferUnpaired', data: { transactionId: 'checking-out', counterpart: { transactionId: 'savings-in', accountId: 'savings' }, reason: 'amountChanged' } },
      ]);
    spec.given([created, split]).when({ type: 'EditTransaction', transactionId: 'checking-out', patch: { notes: 'rent and food' } }).then([
      { type: 'TransactionEdited', data: { transactionId: 'checking-out', changes: [{ field: 'notes', oldValue: null, newValue: 'rent and food', locked: true }] } },
    ]);
  });

  it("clears the splits after the provider's change of the amount, not after one the user locked away", () => {
    const provider: ProviderValues = {
      name: 'ACH TRANSFER',
      merchantName: null,
      amount: '-500',
      date: '2026-11-02',
      categoryId: null,
      paymentChannel: 'other',
      location: null,
      pending: false,
      authorizedDate: null,
      counterparties: [],
      logoUrl: null,
      website: null,
    };
    const imported: TransactionImported = {
      type: 'TransactionImported',
      data: { transactionId: 'checking-out', accountId: 'checking', source: 'bank_link', linkItemId: 'item', linkAccountId: 'la', providerTransactionId: 'p1', isoCurrencyCode: 'USD', replacesTransactionId: null, ...provider },
    };
    const changed = { ...provider, amount: '-450' };
    spec
      .given([imported, split])
      .when({ type: 'UpdateFromProvider', transactionId: 'checking-out', provider: changed })
      .then([
        { type: 'TransactionEdited', data: { transactionId: 'checking-out', changes: [{ field: 'amount', oldValue: '-500', newValue: '-450', locked: false }], provider: changed } },
        { type: 'TransactionSplitsCleared', data: { transactionId: 'checking-out', reason: 'amountChanged', previousSplits: split.data.splits } },
      ]);
    const locked = { type: 'TransactionEdited' as const, data: { transactionId: 'checking-out', changes: [{ field: 'amount' as const, oldValue: '-500', newValue: '-500', locked: true }] } };
    spec
      .given([imported, split, locked])
      .when({ type: 'UpdateFromProvider', transactionId: 'checking-out', provider: changed })
      .then([{ type: 'TransactionEdited', data: { transactionId: 'checking-out', changes: [], provider: changed } }]);
  });
});
