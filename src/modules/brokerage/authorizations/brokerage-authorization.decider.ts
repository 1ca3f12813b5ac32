import type { Decider } from '../../../core/decider.js';
import { DomainRuleError, NotFoundError } from '../../../core/errors.js';
import { unhandled } from '../../../core/exhaustive.js';
import type { BrokerageAccountData, BrokerageAuthorizationConnected, BrokerageAuthorizationEvent } from '../brokerage.events.js';

/** One connection to a brokerage, as its stream (`brokerage-authorization-<uuid>`) tells it. */
export interface BrokerageAuthorizationState {
  readonly status: 'absent' | 'active' | 'disabled' | 'disconnected';
  readonly brokerageAuthorizationId: string | null;
  /** Every account the authorization has brought, oldest first. */
  readonly accounts: readonly BrokerageAccountData[];
  /** Of `accounts`, the ones the user disconnected: no longer synced, never added again by a reconnect. */
  readonly disconnectedAccountIds: readonly string[];
  readonly disabledReason: string | null;
}

export const initialBrokerageAuthorizationState = (): BrokerageAuthorizationState => ({ status: 'absent', brokerageAuthorizationId: null, accounts: [], disconnectedAccountIds: [], disabledReason: null });

/** The authorization's accounts the user has not disconnected, oldest first. */
export const liveBrokerageAccountsOf = (state: BrokerageAuthorizationState): BrokerageAccountData[] => state.accounts.filter((account) => !state.disconnectedAccountIds.includes(account.accountId));

export function evolveBrokerageAuthorization(state: BrokerageAuthorizationState, event: BrokerageAuthorizationEvent): BrokerageAuthorizationState {
  switch (event.type) {
    case 'BrokerageAuthorizationConnected':
      return { ...initialBrokerageAuthorizationState(), status: 'active', brokerageAuthorizationId: event.data.brokerageAuthorizationId, accounts: [...event.data.accounts] };
    case 'BrokerageAuthorizationDisabled':
      return { ...state, status: 'disabled', disabledReason: event.data.reason };
    case 'BrokerageAuthorizationReconnected':
      return { ...state, status: 'active', disabledReason: null, accounts: [...state.accounts, ...event.data.addedAccounts] };
    case 'BrokerageAuthorizationAccountDisconnected':
      return { ...state, disconnectedAccountIds: [...state.disconnectedAccountIds, event.data.accountId] };
    case 'BrokerageAuthorizationDisconnected':
      return { ...state, status: 'disconnected' };
    default: {
      unhandled(event);
      return state;
    }
  }
}

export type BrokerageAuthorizationCommand =
  /**
   * The user finished the provider's portal: a new authorization is connected; one the user has
   * (a reconnect) is active again, with the accounts the provider now shows that it did not have.
   */
  | { type: 'RecordPortalCompletion'; data: BrokerageAuthorizationConnected['data'] }
  /** The provider reports the connection disabled (the sandbox's control, or a sync refused). */
  | { type: 'RecordAuthorizationDisabled'; authorizationUuid: string; reason: string }
  /** The user disconnects the connection and every account it brought. */
  | { type: 'DisconnectBrokerageAuthorization'; authorizationUuid: string }
  /** The user disconnects one account; the last one takes the authorization with it. */
  | { type: 'DisconnectBrokerageAccount'; authorizationUuid: string; accountId: string };

export function decideBrokerageAuthorization(command: BrokerageAuthorizationCommand, state: BrokerageAuthorizationState): BrokerageAuthorizationEvent[] {
  switch (command.type) {
    case 'RecordPortalCompletion': {
      if (state.status === 'absent') return [{ type: 'BrokerageAuthorizationConnected', data: command.data }];
      if (state.status === 'disconnected') {
        throw new DomainRuleError('BROKERAGE_AUTHORIZATION_DISCONNECTED', 'This connection was disconnected: connect the brokerage again as a new connection (POST /brokerage/connect without reconnectAuthorizationId).', 409);
      }
      const known = new Set(state.accounts.map((account) => account.accountId));
      const addedAccounts = command.data.accounts.filter((account) => !known.has(account.accountId));
      // Reconnecting a connection that works and brings nothing new changes nothing.
      if (state.status === 'active' && addedAccounts.length === 0) return [];
      return [{ type: 'BrokerageAuthorizationReconnected', data: { authorizationUuid: command.data.authorizationUuid, addedAccounts } }];
    }
    case 'RecordAuthorizationDisabled':
      if (state.status === 'absent') throw new NotFoundError('Brokerage authorization');
      // Once is enough: a second report (the control, then a refused sync) records nothing; a disconnected one follows nothing.
      if (state.status === 'disabled' || state.status === 'disconnected') return [];
      return [{ type: 'BrokerageAuthorizationDisabled', data: { authorizationUuid: command.authorizationUuid, reason: command.reason } }];
    case 'DisconnectBrokerageAuthorization':
      if (state.status === 'absent') throw new NotFoundError('Brokerage authorization');
      if (state.status === 'disconnected') return [];
      return [disconnectedEvent(command.authorizationUuid, state)];
    case 'DisconnectBrokerageAccount': {
      if (state.status === 'absent') throw new NotFoundError('Brokerage authorization');
      if (state.status === 'disconnected') return [];
      const live = liveBrokerageAccountsOf(state);
      // Not the authorization's, or already disconnected: nothing to do (DELETE is idempotent).
      if (!live.some((account) => account.accountId === command.accountId)) return [];
      const disconnected: BrokerageAuthorizationEvent = { type: 'BrokerageAuthorizationAccountDisconnected', data: { authorizationUuid: command.authorizationUuid, accountId: command.accountId } };
      return live.length > 1 ? [disconnected] : [disconnected, disconnectedEvent(command.authorizationUuid, state)];
    }
    default: {
      unhandled(command);
      throw new Error(`Unknown brokerage authorization command ${(command as { type: string }).type}`);
    }
  }
}

function disconnectedEvent(authorizationUuid: string, state: BrokerageAuthorizationState): BrokerageAuthorizationEvent {
  const accountIds = state.accounts.map((account) => account.accountId);
  return { type: 'BrokerageAuthorizationDisconnected', data: { authorizationUuid, brokerageAuthorizationId: state.brokerageAuthorizationId ?? '', accountIds } };
}

export const brokerageAuthorizationDecider: Decider<BrokerageAuthorizationCommand, BrokerageAuthorizationEvent, BrokerageAuthorizationState> = {
  decide: decideBrokerageAuthorization,
  evolve: evolveBrokerageAuthorization,
  initialState: initialBrokerageAuthorizationState,
};
