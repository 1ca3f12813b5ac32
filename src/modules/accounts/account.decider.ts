import { unhandled } from '../../core/exhaustive.js';
import type { Decider } from '../../core/decider.js';
import { DomainRuleError, NotFoundError } from '../../core/errors.js';
import { CREDIT_LIMIT_NOT_ALLOWED, INVALID_SUBTYPE, ruleViolated } from '../../core/rule-violation.js';
import { availableBalance, effectiveCreditLimit } from './account-balances.js';
import {
  type AccountEvent,
  type AccountState,
  type AccountType,
  type BalanceSnapshotTaken,
  evolveAccount,
  initialAccountState,
  type ManualAccountCreated,
  SUBTYPES_BY_TYPE,
  takesBalanceSnapshots,
} from './account.js';

export type AccountCommand =
  | { type: 'CreateManualAccount'; data: ManualAccountCreated['data']; today: string }
  | { type: 'UpdateManualBalance'; accountId: string; current: string; today: string }
  | { type: 'OverrideCreditLimit'; accountId: string; creditLimit: string | null }
  /** A linked account's stream holds only the user's own overrides; its type comes from its item (the read model). */
  | { type: 'OverrideLinkedCreditLimit'; accountId: string; accountType: AccountType; creditLimit: string | null }
  | { type: 'DeleteAccount'; accountId: string }
  | { type: 'TakeBalanceSnapshot'; accountId: string; date: string }
  /**
   * A linked account's day: its balances are its item's (read from the read model), while its own
   * stream holds only the user's credit-limit overrides and these snapshots.
   */
  | { type: 'TakeLinkedBalanceSnapshot'; accountId: string; date: string; accountType: AccountType; current: string; available: string | null; institutionCreditLimit: string | null };

export function decideAccount(command: AccountCommand, state: AccountState): AccountEvent[] {
  switch (command.type) {
    case 'CreateManualAccount': {
      if (state.status !== 'absent') throw new DomainRuleError('ACCOUNT_EXISTS', 'An account with this id already exists.', 409);
      if (!isSubtypeOf(command.data.type, command.data.subtype)) throw ruleViolated(['subtype'], INVALID_SUBTYPE, subtypeMessage(command.data.type));
      if (command.data.creditLimit !== null && !canHaveCreditLimit(command.data.type)) throw ruleViolated(['creditLimit'], CREDIT_LIMIT_NOT_ALLOWED, CREDIT_LIMIT_MESSAGE);
      const created: ManualAccountCreated = { type: 'ManualAccountCreated', data: command.data };
      return [created, snapshot(evolveAccount(state, created), command.data.accountId, command.today)];
    }
    case 'UpdateManualBalance': {
      const open = requireOpen(state);
      if (open.source !== 'manual') throw new DomainRuleError('ACCOUNT_NOT_MANUAL', 'Only a manual account balance can be set by hand.');
      const accountId = command.accountId;
      const updated: AccountEvent = { type: 'ManualBalanceUpdated', data: { accountId, current: command.current } };
      const next = evolveAccount(state, updated);
      return takesBalanceSnapshots(next) ? [updated, snapshot(next, accountId, command.today)] : [updated];
    }
    case 'OverrideCreditLimit': {
      const open = requireOpen(state);
      if (!canHaveCreditLimit(open.type) && command.creditLimit !== null) throw ruleViolated(['creditLimit'], CREDIT_LIMIT_NOT_ALLOWED, CREDIT_LIMIT_MESSAGE);
      if (open.userOverrideCreditLimit === command.creditLimit) return [];
      return [{ type: 'CreditLimitOverridden', data: { accountId: command.accountId, creditLimit: command.creditLimit } }];
    }
    case 'OverrideLinkedCreditLimit': {
      if (state.status !== 'absent') throw new NotFoundError('Account');
      if (!canHaveCreditLimit(command.accountType) && command.creditLimit !== null) throw ruleViolated(['creditLimit'], CREDIT_LIMIT_NOT_ALLOWED, CREDIT_LIMIT_MESSAGE);
      if (state.userOverrideCreditLimit === command.creditLimit) return [];
      return [{ type: 'CreditLimitOverridden', data: { accountId: command.accountId, creditLimit: command.creditLimit } }];
    }
    case 'DeleteAccount':
      return state.status === 'open' ? [{ type: 'AccountDeleted', data: { accountId: command.accountId } }] : [];
    case 'TakeBalanceSnapshot': {
      if (!takesBalanceSnapshots(state)) return [];
      const taken = snapshot(state, command.accountId, command.date);
      return alreadyTaken(state, taken) ? [] : [taken];
    }
    case 'TakeLinkedBalanceSnapshot': {
      // A stream that is open (or deleted) is a manual account's: not this command's to snapshot.
      if (state.status !== 'absent') return [];
      const limit = effectiveCreditLimit(command.institutionCreditLimit, state.userOverrideCreditLimit);
      // The provider's available figure, as GET /accounts/{id} shows it; computed only when it gives none.
      const available = command.available ?? availableBalance(command.accountType, command.current, limit);
      const taken: BalanceSnapshotTaken = { type: 'BalanceSnapshotTaken', data: { accountId: command.accountId, date: command.date, currentBalance: command.current, availableBalance: available, creditLimit: limit } };
      return alreadyTaken(state, taken) ? [] : [taken];
    }
    default: {
      unhandled(command);
      throw new Error(`Unknown account command ${(command as { type: string }).type}`);
    }
  }
}

export const accountDecider: Decider<AccountCommand, AccountEvent, AccountState> = {
  decide: decideAccount,
  evolve: evolveAccount,
  initialState: initialAccountState,
};

function requireOpen(state: AccountState): AccountState {
  if (state.status !== 'open') throw new NotFoundError('Account');
  return state;
}

/**
 * The day's snapshot with these very balances is already on the stream: a retried or repeated run
 * appends nothing. A day's balances that moved since its last snapshot (a link-day snapshot, then
 * the first sync's balances by the night) are taken again: the later one wins.
 */
function alreadyTaken(state: AccountState, taken: BalanceSnapshotTaken): boolean {
  const last = state.lastSnapshot;
  return (
    last !== null &&
    last.date === taken.data.date &&
    last.currentBalance === taken.data.currentBalance &&
    last.availableBalance === taken.data.availableBalance &&
    last.creditLimit === taken.data.creditLimit
  );
}

function snapshot(state: AccountState, accountId: string, date: string): BalanceSnapshotTaken {
  const limit = effectiveCreditLimit(state.creditLimit, state.userOverrideCreditLimit);
  return {
    type: 'BalanceSnapshotTaken',
    data: { accountId, date, currentBalance: state.current, availableBalance: availableBalance(state.type, state.current, limit), creditLimit: limit },
  };
}

export function isAccountType(value: string): value is AccountType {
  return value === 'bank' || value === 'credit_card' || value === 'investment' || value === 'loan';
}

/** INVALID_SUBTYPE: a subtype belongs to the vocabulary of its type (see SUBTYPES_BY_TYPE). */
export function isSubtypeOf(type: AccountType, subtype: string): boolean {
  return SUBTYPES_BY_TYPE[type].includes(subtype);
}

export function subtypeMessage(type: AccountType): string {
  return `subtype must be one of ${SUBTYPES_BY_TYPE[type].join(', ')} for type ${type}`;
}

/** CREDIT_LIMIT_NOT_ALLOWED: only a credit card has a credit limit. */
export function canHaveCreditLimit(type: AccountType): boolean {
  return type === 'credit_card';
}

export const CREDIT_LIMIT_MESSAGE = 'A credit limit applies only to credit_card accounts.';
