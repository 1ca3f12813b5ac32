import { NotFoundError } from '../../../core/errors.js';
import { specification } from '../../../core/decider-specification.test-support.js';
import type { BrokerageAccountData, BrokerageAuthorizationConnected, BrokerageAuthorizationEvent } from '../brokerage.events.js';
import { brokerageAuthorizationDecider } from './brokerage-authorization.decider.js';

const authorizationUuid = '11111111-1111-5111-8111-111111111111';
const account = (accountId: string, brokerageAccountId: string, accountType = 'individual'): BrokerageAccountData => ({
  accountId, brokerageAccountId, name: 'Individual Brokerage', number: '****1234', institutionName: 'Parkside Investments', accountType, accountStatus: 'open', currency: 'USD',
});
const individual = account('22222222-2222-5222-8222-222222222222', 'acc-1');
const roth = account('33333333-3333-5333-8333-333333333333', 'acc-2', 'roth_ira');
const connected: BrokerageAuthorizationConnected = {
  type: 'BrokerageAuthorizationConnected',
  data: {
    authorizationUuid, brokerageAuthorizationId: 'auth-1', provider: 'sandbox',
    brokerage: { id: 'brk_parkside', name: 'Parkside Investments', logo: null }, accounts: [individual],
  },
};
const disabled: BrokerageAuthorizationEvent = { type: 'BrokerageAuthorizationDisabled', data: { authorizationUuid, reason: 'dropped' } };
const spec = specification(brokerageAuthorizationDecider);

describe('brokerage authorization decider', () => {
  it('connects a new authorization with its accounts', () => {
    spec.given([]).when({ type: 'RecordPortalCompletion', data: connected.data }).then([connected]);
  });

  it('reconnects a disabled authorization, adding only the accounts it did not have', () => {
    spec
      .given([connected, disabled])
      .when({ type: 'RecordPortalCompletion', data: { ...connected.data, accounts: [individual, roth] } })
      .then([{ type: 'BrokerageAuthorizationReconnected', data: { authorizationUuid, addedAccounts: [roth] } }]);
    spec.given([connected, disabled]).when({ type: 'RecordPortalCompletion', data: connected.data }).then([{ type: 'BrokerageAuthorizationReconnected', data: { authorizationUuid, addedAccounts: [] } }]);
  });

  it('records nothing for a reconnect of an active authorization that brings nothing new, but joins the accounts one brings', () => {
    spec.given([connected]).when({ type: 'RecordPortalCompletion', data: connected.data }).then([]);
    spec.given([connected]).when({ type: 'RecordPortalCompletion', data: { ...connected.data, accounts: [roth] } }).then([{ type: 'BrokerageAuthorizationReconnected', data: { authorizationUuid, addedAccounts: [roth] } }]);
  });

  it('disables an active authorization once; a second report, or one after a reconnect cleared it, is decided on the state', () => {
    spec.given([connected]).when({ type: 'RecordAuthorizationDisabled', authorizationUuid, reason: 'dropped' }).then([disabled]);
    spec.given([connected, disabled]).when({ type: 'RecordAuthorizationDisabled', authorizationUuid, reason: 'again' }).then([]);
    const reconnected: BrokerageAuthorizationEvent = { type: 'BrokerageAuthorizationReconnected', data: { authorizationUuid, addedAccounts: [] } };
    spec.given([connected, disabled, reconnected]).when({ type: 'RecordAuthorizationDisabled', authorizationUuid, reason: 'dropped' }).then([disabled]);
  });

  it('refuses to disable an authorization that was never connected', () => {
    spec.given([]).when({ type: 'RecordAuthorizationDisabled', authorizationUuid, reason: 'dropped' }).thenThrows((error) => expect(error).toBeInstanceOf(NotFoundError));
  });

  it('folds the accounts and status the sync reads', () => {
    const reconnected: BrokerageAuthorizationEvent = { type: 'BrokerageAuthorizationReconnected', data: { authorizationUuid, addedAccounts: [roth] } };
    const state = [connected, disabled, reconnected].reduce(brokerageAuthorizationDecider.evolve, brokerageAuthorizationDecider.initialState());
    expect(state).toEqual({ status: 'active', brokerageAuthorizationId: 'auth-1', accounts: [individual, roth], disabledReason: null });
  });
});
