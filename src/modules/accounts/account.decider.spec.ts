import { NotFoundError, ValidationFailedError } from '../../core/errors.js';
import { specification } from '../../core/decider-specification.test-support.js';
import type { ManualAccountCreated } from './account.js';
import { accountDecider } from './account.decider.js';

const card: ManualAccountCreated = {
  type: 'ManualAccountCreated',
  data: { accountId: 'a1', name: 'Visa', type: 'credit_card', subtype: 'credit card', currency: 'USD', mask: '4242', institutionName: null, currentBalance: '-1200', creditLimit: '5000' },
};
const spec = specification(accountDecider);

const refusedBy = (rule: string, path: string[]) => (error: unknown) => {
  expect(error).toBeInstanceOf(ValidationFailedError);
  expect((error as ValidationFailedError).issues).toEqual([{ code: 'custom', message: expect.any(String), path, params: { code: rule } }]);
};

describe('account decider', () => {
  it('seeds today\'s balance snapshot when a manual account is created', () => {
    spec
      .given([])
      .when({ type: 'CreateManualAccount', data: card.data, today: '2026-11-22' })
      .then([card, { type: 'BalanceSnapshotTaken', data: { accountId: 'a1', date: '2026-11-22', currentBalance: '-1200', availableBalance: '3800', creditLimit: '5000' } }]);
  });

  it('snapshots the new balance when it is set by hand, using the user\'s own credit limit', () => {
    spec
      .given([card, { type: 'CreditLimitOverridden', data: { accountId: 'a1', creditLimit: '6000' } }])
      .when({ type: 'UpdateManualBalance', accountId: 'a1', current: '-100.25', today: '2026-11-23' })
      .then([
        { type: 'ManualBalanceUpdated', data: { accountId: 'a1', current: '-100.25' } },
        { type: 'BalanceSnapshotTaken', data: { accountId: 'a1', date: '2026-11-23', currentBalance: '-100.25', availableBalance: '5899.75', creditLimit: '6000' } },
      ]);
  });

  it('takes the nightly snapshot once per day, investment accounts included', () => {
    const snapshotToday = { type: 'BalanceSnapshotTaken' as const, data: { accountId: 'a1', date: '2026-11-22', currentBalance: '-1200', availableBalance: '3800', creditLimit: '5000' } };
    spec.given([card, snapshotToday]).when({ type: 'TakeBalanceSnapshot', accountId: 'a1', date: '2026-11-22' }).then([]);
    spec.given([card, snapshotToday]).when({ type: 'TakeBalanceSnapshot', accountId: 'a1', date: '2026-11-23' }).then([{ ...snapshotToday, data: { ...snapshotToday.data, date: '2026-11-23' } }]);
    const brokerage: ManualAccountCreated = { type: 'ManualAccountCreated', data: { ...card.data, type: 'investment', subtype: 'brokerage', creditLimit: null } };
    spec
      .given([brokerage])
      .when({ type: 'TakeBalanceSnapshot', accountId: 'a1', date: '2026-11-23' })
      .then([{ type: 'BalanceSnapshotTaken', data: { accountId: 'a1', date: '2026-11-23', currentBalance: '-1200', availableBalance: '-1200', creditLimit: null } }]);
  });

  it("snapshots a linked account once a day from its item's balances, with the user's own limit when there is one", () => {
    const linkedCard = { type: 'TakeLinkedBalanceSnapshot' as const, accountId: 'l1', accountType: 'credit_card' as const, current: '-310.25', available: '4689.75', institutionCreditLimit: '5000' };
    const taken = { type: 'BalanceSnapshotTaken' as const, data: { accountId: 'l1', date: '2026-11-23', currentBalance: '-310.25', availableBalance: '4689.75', creditLimit: '5000' } };
    spec.given([]).when({ ...linkedCard, date: '2026-11-23' }).then([taken]);
    spec.given([taken]).when({ ...linkedCard, date: '2026-11-23' }).then([]);
    // The same day with balances that moved since (the link-day snapshot, then the night's): taken again, the later one wins.
    spec.given([taken]).when({ ...linkedCard, current: '-400', available: '4600', date: '2026-11-23' }).then([{ ...taken, data: { ...taken.data, currentBalance: '-400', availableBalance: '4600' } }]);
    const overridden = { type: 'CreditLimitOverridden' as const, data: { accountId: 'l1', creditLimit: '7000' } };
    spec.given([overridden, taken]).when({ ...linkedCard, date: '2026-11-24' }).then([{ ...taken, data: { ...taken.data, date: '2026-11-24', creditLimit: '7000' } }]);
    // No available figure from the provider: limit + balance, as for a manual card.
    spec.given([overridden]).when({ ...linkedCard, available: null, date: '2026-11-24' }).then([{ ...taken, data: { ...taken.data, date: '2026-11-24', availableBalance: '6689.75', creditLimit: '7000' } }]);
  });

  it('takes a linked snapshot of a bank-linked investment account, and none on the stream of a manual account', () => {
    const linked = { type: 'TakeLinkedBalanceSnapshot' as const, accountId: 'a1', date: '2026-11-23', current: '10', available: '10', institutionCreditLimit: null };
    spec
      .given([])
      .when({ ...linked, accountType: 'investment' })
      .then([{ type: 'BalanceSnapshotTaken', data: { accountId: 'a1', date: '2026-11-23', currentBalance: '10', availableBalance: '10', creditLimit: null } }]);
    spec.given([card]).when({ ...linked, accountType: 'credit_card' }).then([]);
  });

  it('refuses a credit limit on an account that is not a credit card (CREDIT_LIMIT_NOT_ALLOWED)', () => {
    const checking: ManualAccountCreated = { type: 'ManualAccountCreated', data: { ...card.data, type: 'bank', subtype: 'checking', creditLimit: null } };
    spec.given([checking]).when({ type: 'OverrideCreditLimit', accountId: 'a1', creditLimit: '100' }).thenThrows(refusedBy('CREDIT_LIMIT_NOT_ALLOWED', ['creditLimit']));
    spec.given([checking]).when({ type: 'OverrideCreditLimit', accountId: 'a1', creditLimit: null }).then([]);
    spec
      .given([])
      .when({ type: 'CreateManualAccount', data: { ...checking.data, creditLimit: '100' }, today: '2026-11-22' })
      .thenThrows(refusedBy('CREDIT_LIMIT_NOT_ALLOWED', ['creditLimit']));
  });

  it('refuses a subtype outside the vocabulary of its type (INVALID_SUBTYPE)', () => {
    spec
      .given([])
      .when({ type: 'CreateManualAccount', data: { ...card.data, type: 'bank', subtype: 'mortgage', creditLimit: null }, today: '2026-11-22' })
      .thenThrows(refusedBy('INVALID_SUBTYPE', ['subtype']));
  });

  it('deletes idempotently and then knows the account no more', () => {
    spec.given([card]).when({ type: 'DeleteAccount', accountId: 'a1' }).then([{ type: 'AccountDeleted', data: { accountId: 'a1' } }]);
    spec.given([card, { type: 'AccountDeleted', data: { accountId: 'a1' } }]).when({ type: 'DeleteAccount', accountId: 'a1' }).then([]);
    spec
      .given([card, { type: 'AccountDeleted', data: { accountId: 'a1' } }])
      .when({ type: 'UpdateManualBalance', accountId: 'a1', current: '1', today: '2026-11-23' })
      .thenThrows((error) => expect(error).toBeInstanceOf(NotFoundError));
  });

  it("records the user's own credit limit on a linked card, whose stream holds nothing else", () => {
    const overridden = { type: 'CreditLimitOverridden' as const, data: { accountId: 'l1', creditLimit: '7000' } };
    spec.given([]).when({ type: 'OverrideLinkedCreditLimit', accountId: 'l1', accountType: 'credit_card', creditLimit: '7000' }).then([overridden]);
    spec.given([overridden]).when({ type: 'OverrideLinkedCreditLimit', accountId: 'l1', accountType: 'credit_card', creditLimit: '7000' }).then([]);
    spec
      .given([overridden])
      .when({ type: 'OverrideLinkedCreditLimit', accountId: 'l1', accountType: 'credit_card', creditLimit: null })
      .then([{ type: 'CreditLimitOverridden', data: { accountId: 'l1', creditLimit: null } }]);
    spec.given([]).when({ type: 'OverrideLinkedCreditLimit', accountId: 'l1', accountType: 'bank', creditLimit: '10' }).thenThrows(refusedBy('CREDIT_LIMIT_NOT_ALLOWED', ['creditLimit']));
    spec.given([card]).when({ type: 'OverrideLinkedCreditLimit', accountId: 'a1', accountType: 'credit_card', creditLimit: '10' }).thenThrows((error) => expect(error).toBeInstanceOf(NotFoundError));
  });
});
