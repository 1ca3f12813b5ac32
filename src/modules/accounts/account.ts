import { unhandled } from '../../core/exhaustive.js';
import type { DomainEvent } from '../../core/events.js';

export const ACCOUNT_TYPES = ['bank', 'credit_card', 'investment', 'loan'] as const;
export type AccountType = (typeof ACCOUNT_TYPES)[number];

export const SUBTYPES_BY_TYPE: Readonly<Record<AccountType, readonly string[]>> = {
  bank: ['checking', 'savings', 'money market', 'cd', 'cash management', 'prepaid', 'hsa', 'paypal'],
  credit_card: ['credit card', 'paypal', 'store card'],
  investment: ['brokerage', '401k', '403b', 'ira', 'roth', '529', 'hsa', 'pension', 'crypto exchange', 'other'],
  loan: ['mortgage', 'auto', 'student', 'personal', 'home equity', 'line of credit', 'other'],
};

export type AccountSource = 'bank_link' | 'brokerage_link' | 'manual';

export type ManualAccountCreated = DomainEvent<
  'ManualAccountCreated',
  {
    accountId: string;
    name: string;
    type: AccountType;
    subtype: string;
    currency: string;
    mask: string | null;
    institutionName: string | null;
    currentBalance: string;
    creditLimit: string | null;
  }
>;
export type ManualBalanceUpdated = DomainEvent<'ManualBalanceUpdated', { accountId: string; current: string }>;
/** The user's own credit limit, shown beside (and preferred over) the institution's; null clears it. */
export type CreditLimitOverridden = DomainEvent<'CreditLimitOverridden', { accountId: string; creditLimit: string | null }>;
export type BalanceSnapshotTaken = DomainEvent<
  'BalanceSnapshotTaken',
  { accountId: string; date: string; currentBalance: string; availableBalance: string; creditLimit: string | null }
>;
export type AccountDeleted = DomainEvent<'AccountDeleted', { accountId: string }>;

export type AccountEvent = ManualAccountCreated | ManualBalanceUpdated | CreditLimitOverridden | BalanceSnapshotTaken | AccountDeleted;

export interface AccountState {
  readonly status: 'absent' | 'open' | 'deleted';
  readonly source: AccountSource;
  readonly type: AccountType;
  readonly current: string;
  readonly creditLimit: string | null;
  readonly userOverrideCreditLimit: string | null;
  /** The last snapshot taken: a day's is taken again only when its balances have changed since (the later one wins). */
  readonly lastSnapshot: BalanceSnapshotTaken['data'] | null;
}

export const initialAccountState = (): AccountState => ({
  status: 'absent',
  source: 'manual',
  type: 'bank',
  current: '0',
  creditLimit: null,
  userOverrideCreditLimit: null,
  lastSnapshot: null,
});

export function evolveAccount(state: AccountState, event: AccountEvent): AccountState {
  switch (event.type) {
    case 'ManualAccountCreated':
      return { ...state, status: 'open', source: 'manual', type: event.data.type, current: event.data.currentBalance, creditLimit: event.data.creditLimit };
    case 'ManualBalanceUpdated':
      return { ...state, current: event.data.current };
    case 'CreditLimitOverridden':
      return { ...state, userOverrideCreditLimit: event.data.creditLimit };
    case 'BalanceSnapshotTaken':
      return { ...state, lastSnapshot: event.data };
    case 'AccountDeleted':
      return { ...state, status: 'deleted' };
    default: {
      unhandled(event);
      return state;
    }
  }
}

export const ACCOUNT_STREAM_PREFIX = 'account-';

export function accountStreamId(accountId: string): string {
  return `${ACCOUNT_STREAM_PREFIX}${accountId}`;
}

/**
 * Every open manual account, investments included: only brokerage-linked accounts have their value
 * series elsewhere (portfolio snapshots; rule 12), and they never have an open account stream.
 */
export function takesBalanceSnapshots(state: AccountState): boolean {
  return state.status === 'open';
}
