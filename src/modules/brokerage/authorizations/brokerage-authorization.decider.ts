import type { Decider } from '../../../core/decider.js';
import { NotFoundError } from '../../../core/errors.js';
import { unhandled } from '../../../core/exhaustive.js';
import type { BrokerageAccountData, BrokerageAuthorizationConnected, BrokerageAuthorizationEvent } from '../brokerage.events.js';

/** One connection to a brokerage, as its stream (`brokerage-authorization-<uuid>`) tells it. */
export interface BrokerageAuthorizationState {
  readonly status: 'absent' | 'active' | 'disabled';
  readonly brokerageAuthorizationId: string | null;
  /** Every account the authorization has brought, oldest first. */
  readonly accounts: readonly BrokerageAccountData[];
  readonly disabledReason: string | null;
}

export const initialBrokerageAuthorizationState = (): BrokerageAuthorizationState => ({ status: 'absent', brokerageAuthorizationId: null, accounts: [], disabledReason: null });

export function evolveBrokerageAuthorization(state: BrokerageAuthorizationState, event: BrokerageAuthorizationEvent): BrokerageAuthorizationState {
  switch (event.type) {
    case 'BrokerageAuthorizationConnected':
      return { status: 'active', brokerageAuthorizationId: event.data.brokerageAuthorizationId, accounts: [...event.data.accounts], disabledReason: null };
    case 'BrokerageAuthorizationDisabled':
      return { ...state, status: 'disabled', disabledReason: event.data.reason };
    case 'BrokerageAuthorizationReconnected':
      return { ...state, status: 'active', disabledReason: null, accounts: [...state.accounts, ...event.data.addedAccounts] };
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
  | { type: 'RecordAuthorizationDisabled'; authorizationUuid: string; reason: string };

export function decideBrokerageAuthorization(command: BrokerageAuthorizationCommand, state: BrokerageAuthorizationState): BrokerageAuthorizationEvent[] {
  switch (command.type) {
    case 'RecordPortalCompletion': {
      if (state.status === 'absent') return [{ type: 'BrokerageAuthorizationConnected', data: command.data }];
      const known = new Set(state.accounts.map((account) => account.accountId));
      const addedAccounts = command.data.accounts.filter((account) => !known.has(account.accountId));
      // Reconnecting a connection that works and brings nothing new changes nothing.
      if (state.status === 'active' && addedAccounts.length === 0) return [];
      return [{ type: 'BrokerageAuthorizationReconnected', data: { authorizationUuid: command.data.authorizationUuid, addedAccounts } }];
    }
    case 'RecordAuthorizationDisabled':
      if (state.status === 'absent') throw new NotFoundError('Brokerage authorization');
      // Once is enough: a second report (the control, then a refused sync) records nothing.
      if (state.status === 'disabled') return [];
      return [{ type: 'BrokerageAuthorizationDisabled', data: { authorizationUuid: command.authorizationUuid, reason: command.reason } }];
    default: {
      unhandled(command);
      throw new Error(`Unknown brokerage authorization command ${(command as { type: string }).type}`);
    }
  }
}

export const brokerageAuthorizationDecider: Decider<BrokerageAuthorizationCommand, BrokerageAuthorizationEvent, BrokerageAuthorizationState> = {
  decide: decideBrokerageAuthorization,
  evolve: evolveBrokerageAuthorization,
  initialState: initialBrokerageAuthorizationState,
};
