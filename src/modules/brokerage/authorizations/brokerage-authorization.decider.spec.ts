import { NotFoundError } from '../../../core/errors.js';
import { specification } from '../../../core/decider-specification.test-support.js';
import type { BrokerageAccountData, BrokerageAuthorizationConnected, BrokerageAuthorizationEvent } from '../brokerage.events.js';
import { brokerageAuthorizationDecider, liveBrokerageAccountsOf } from './brokerage-authorization.decider.js';

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
    expect(state).toEqual({ status: 'active', brokerageAuthorizationId: 'auth-1', accounts: [individual, roth], disconnectedAccountIds: [], disabledReason: null });
  });

  describe('disconnecting', () => {
    const both: BrokerageAuthorizationConnected = { ...connected, data: { ...connected.data, accounts: [individual, roth] } };
    const goneIndividual: BrokerageAuthorizationEvent = { type: 'BrokerageAuthorizationAccountDisconnected', data: { authorizationUuid, accountId: individual.accountId } };
    const gone: BrokerageAuthorizationEvent = { type: 'BrokerageAuthorizationDisconnected', data: { authorizationUuid, brokerageAuthorizationId: 'auth-1', accountIds: [individual.accountId, roth.accountId] } };

    it('disconnects the authorization with every account it brought, once', () => {
      spec.given([both]).when({ type: 'DisconnectBrokerageAuthorization', authorizationUuid }).then([gone]);
      spec.given([both, disabled]).when({ type: 'DisconnectBrokerageAuthorization', authorizationUuid }).then([gone]);
      spec.given([both, gone]).when({ type: 'DisconnectBrokerageAuthorization', authorizationUuid }).then([]);
      spec.given([]).when({ type: 'DisconnectBrokerageAuthorization', authorizationUuid }).thenThrows((error) => expect(error).toBeInstanceOf(NotFoundError));
    });

    it('disconnects one account; the last one takes the authorization with it; again, or an account not its own: nothing', () => {
      spec.given([both]).when({ type: 'DisconnectBrokerageAccount', authorizationUuid, accountId: individual.accountId }).then([goneIndividual]);
      spec.given([both, goneIndividual]).when({ type: 'DisconnectBrokerageAccount', authorizationUuid, accountId: individual.accountId }).then([]);
      spec.given([both]).when({ type: 'DisconnectBrokerageAccount', authorizationUuid, accountId: '44444444-4444-5444-8444-444444444444' }).then([]);
      spec
        .given([both, goneIndividual])
        .when({ type: 'DisconnectBrokerageAccount', authorizationUuid, accountId: roth.accountId })
        .then([{ type: 'BrokerageAuthorizationAccountDisconnected', data: { authorizationUuid, accountId: roth.accountId } }, gone]);
    });

    it('brings back no disconnected account on a reconnect, refuses a reconnect of a disconnected authorization, and records no disable of one', () => {
      spec.given([both, goneIndividual, disabled]).when({ type: 'RecordPortalCompletion', data: both.data }).then([{ type: 'BrokerageAuthorizationReconnected', data: { authorizationUuid, addedAccounts: [] } }]);
      spec.given([both, gone]).when({ type: 'RecordPortalCompletion', data: both.data }).thenThrows((error) => expect(error).toMatchObject({ code: 'BROKERAGE_AUTHORIZATION_DISCONNECTED', status: 409 }));
      spec.given([both, gone]).when({ type: 'RecordAuthorizationDisabled', authorizationUuid, reason: 'late' }).then([]);
      const state = [both, goneIndividual].reduce(brokerageAuthorizationDecider.evolve, brokerageAuthorizationDecider.initialState());
      expect(liveBrokerageAccountsOf(state)).toEqual([roth]);
    });
  });
});
