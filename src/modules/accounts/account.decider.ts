import { unhandled } from '../../core/exhaustive.js';
import type { Decider } from '../../core/decider.js';
import { DomainRuleError, invalid, NotFoundError } from '../../core/errors.js';
import { availableBalance, effectiveCreditLimit } from './account-balances.js';
import {
  type AccountEvent,
  type AccountState,
  type AccountType,
  evolveAccount,
  initialAccountState,
  type ManualAccountCreated,
  takesBalanceSnapshots,
} from './account.js';

export type AccountCommand =
  | { type: 'CreateManualAccount'; data: ManualAccountCreated['data']; today: string }
  | { type: 'UpdateManualBalance'; accountId: string; current: string; today: string }
  | { type: 'OverrideCreditLimit'; accountId: string; creditLimit: string | null }
  | { type: 'DeleteAccount'; accountId: string }
  | { type: 'TakeBalanceSnapshot'; accountId: string; date: string };

export function decideAccount(command: AccountCommand, state: AccountState): AccountEvent[] {
  switch (command.type) {
    case 'CreateManualAccount': {
      if (state.status !== 'absent') throw new DomainRuleError('ACCOUNT_EXISTS', 'An account with this id already exists.', 409);
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
      if (open.type !== 'credit_card' && command.creditLimit !== null) {
        throw invalid(['creditLimit'], 'A credit limit applies only to credit_card accounts.', 'custom');
      }
      if (open.userOverrideCreditLimit === command.creditLimit) return [];
      return [{ type: 'CreditLimitOverridden', data: { accountId: command.accountId, creditLimit: command.creditLimit } }];
    }
    case 'DeleteAccount':
      return state.status === 'open' ? [{ type: 'AccountDeleted', data: { accountId: command.accountId } }] : [];
    case 'TakeBalanceSnapshot':
      if (!takesBalanceSnapshots(state) || state.lastSnapshotDate === command.date) return [];
      return [snapshot(state, command.accountId, command.date)];
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

function snapshot(state: AccountState, accountId: string, date: string): AccountEvent {
  const limit = effectiveCreditLimit(state.creditLimit, state.userOverrideCreditLimit);
  return {
    type: 'BalanceSnapshotTaken',
    data: { accountId, date, currentBalance: state.current, availableBalance: availableBalance(state.type, state.current, limit), creditLimit: limit },
  };
}

export function isAccountType(value: string): value is AccountType {
  return value === 'bank' || value === 'credit_card' || value === 'investment' || value === 'loan';
}
