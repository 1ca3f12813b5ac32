import {
  BrokerageLinkError,
  type Brokerage,
  type BrokerageAccount,
  type BrokerageActivity,
  type BrokerageAuthorization,
  type BrokerageLinkProvider,
  type BrokerageUser,
  type DateRange,
  type PortfolioValue,
} from '../brokerage-link.port.js';
import { parseIsoDate, type SandboxMarket } from '../../quotes/sandbox-market/index.js';
import type { PlannedActivity } from './planned-activity.js';
import { balanceAt, portfolioValues, positionsAt } from './portfolio-valuation.js';
import { type SandboxAccountKind, sandboxAccountHistory, uuidFrom } from './sandbox-accounts.js';

export const SANDBOX_BROKERAGES: readonly Brokerage[] = [
  { id: 'brk_parkside', name: 'Parkside Investments', logo: 'https://logos.ledgerline.example/brokerages/parkside.png' },
  { id: 'brk_tidewater', name: 'Tidewater Securities', logo: 'https://logos.ledgerline.example/brokerages/tidewater.png' },
  { id: 'brk_lantern', name: 'Lantern Invest', logo: 'https://logos.ledgerline.example/brokerages/lantern.png' },
];

export interface SandboxBrokerageOptions {
  readonly seed: number;
  /** `YYYY-MM-DD`: account histories end on this day; balances and positions are as of it. */
  readonly asOf: string;
  /** The market prices come from, so valuations agree with quotes. */
  readonly market: SandboxMarket;
  readonly clock?: { now(): Date };
}

/** The port plus the controls of a provider's sandbox. */
export interface SandboxBrokerage extends BrokerageLinkProvider {
  readonly brokerages: readonly Brokerage[];
  /** Stands in for the user finishing the connection portal: a new authorization, or a repaired one. */
  completeConnection(request: { user: BrokerageUser; brokerageId?: string; reconnectAuthorizationId?: string }): BrokerageAuthorization;
  /** Simulates a connection the brokerage dropped: the user must reconnect. */
  disableAuthorization(authorizationId: string, reason?: string): void;
}

interface AccountState {
  readonly account: BrokerageAccount;
  readonly planned: PlannedActivity[];
  readonly activities: BrokerageActivity[];
  values: PortfolioValue[] | null;
}

interface AuthorizationState {
  authorization: BrokerageAuthorization;
  readonly userId: string;
  readonly accounts: AccountState[];
}

export function createSandboxBrokerage(options: SandboxBrokerageOptions): SandboxBrokerage {
  const { seed, market } = options;
  const asOfDay = parseIsoDate(options.asOf);
  const clock = options.clock ?? { now: () => new Date(asOfDay * 86_400_000 + 43_200_000) };
  const secrets = new Map<string, string>();
  const authorizations = new Map<string, AuthorizationState>();
  const accounts = new Map<string, AccountState & { readonly authorizationId: string }>();
  let serial = 0;

  const authenticate = (user: BrokerageUser): void => {
    if (secrets.get(user.userId) !== user.userSecret) throw new BrokerageLinkError('INVALID_USER', 'Unknown user or wrong user secret');
  };
  const ownAuthorization = (user: BrokerageUser, authorizationId: string): AuthorizationState => {
    authenticate(user);
    const state = authorizations.get(authorizationId);
    if (state === undefined || state.userId !== user.userId) throw new BrokerageLinkError('AUTHORIZATION_NOT_FOUND', `No authorization ${authorizationId}`);
    return state;
  };
  const usableAccount = (user: BrokerageUser, accountId: string): AccountState => {
    authenticate(user);
    const state = accounts.get(accountId);
    const owner = state === undefined ? undefined : authorizations.get(state.authorizationId);
    if (state === undefined || owner === undefined || owner.userId !== user.userId) throw new BrokerageLinkError('ACCOUNT_NOT_FOUND', `No account ${accountId}`);
    if (owner.authorization.status === 'disabled') throw new BrokerageLinkError('AUTHORIZATION_DISABLED', 'The connection is disabled; the user must reconnect');
    return state;
  };
  const inRange = (date: string, range: DateRange = {}): boolean =>
    (range.startDate === undefined || date >= range.startDate) && (range.endDate === undefined || date <= range.endDate);

  const openAccount = (authorization: BrokerageAuthorization, kind: SandboxAccountKind): AccountState => ({
    ...sandboxAccountHistory({ seed, authorization, kind, openedOn: options.asOf, asOf: options.asOf, market }),
    values: null,
  });

  return {
    brokerages: SANDBOX_BROKERAGES,

    async registerUser(userId) {
      const userSecret = secrets.get(userId) ?? `usersecret-${uuidFrom(seed, 'secret', userId)}`;
      secrets.set(userId, userSecret);
      return { userId, userSecret };
    },

    async createConnectionPortal({ user, reconnectAuthorizationId }) {
      if (reconnectAuthorizationId === undefined) authenticate(user);
      else ownAuthorization(user, reconnectAuthorizationId);
      serial += 1;
      const session = uuidFrom(seed, 'portal', user.userId, serial);
      return { redirectUri: `https://connect.sandbox.ledgerline.example/portal?session=${session}`, expiresAt: new Date(clock.now().getTime() + 300_000).toISOString() };
    },

    completeConnection({ user, brokerageId, reconnectAuthorizationId }) {
      if (reconnectAuthorizationId !== undefined) {
        const state = ownAuthorization(user, reconnectAuthorizationId);
        state.authorization = { ...state.authorization, status: 'active', needsReconnect: false, disabledReason: null };
        return state.authorization;
      }
      authenticate(user);
      const brokerage = SANDBOX_BROKERAGES.find((candidate) => candidate.id === (brokerageId ?? SANDBOX_BROKERAGES[0]!.id));
      if (brokerage === undefined) throw new BrokerageLinkError('BROKERAGE_NOT_FOUND', `No sandbox brokerage ${brokerageId}`);
      serial += 1;
      const authorization: BrokerageAuthorization = {
        id: uuidFrom(seed, 'authorization', user.userId, serial), brokerage, status: 'active', needsReconnect: false, disabledReason: null, createdAt: clock.now().toISOString(),
      };
      const state: AuthorizationState = { authorization, userId: user.userId, accounts: [openAccount(authorization, 'individual'), openAccount(authorization, 'roth_ira')] };
      authorizations.set(authorization.id, state);
      for (const account of state.accounts) accounts.set(account.account.id, { ...account, authorizationId: authorization.id });
      return authorization;
    },

    disableAuthorization(authorizationId, reason = 'The brokerage ended the connection; reconnect to resume syncing') {
      const state = authorizations.get(authorizationId);
      if (state === undefined) throw new BrokerageLinkError('AUTHORIZATION_NOT_FOUND', `No authorization ${authorizationId}`);
      state.authorization = { ...state.authorization, status: 'disabled', needsReconnect: true, disabledReason: reason };
    },

    async listAuthorizations(user) {
      authenticate(user);
      return [...authorizations.values()].filter((state) => state.userId === user.userId).map((state) => state.authorization);
    },

    async removeAuthorization(user, authorizationId) {
      const state = ownAuthorization(user, authorizationId);
      for (const account of state.accounts) accounts.delete(account.account.id);
      authorizations.delete(authorizationId);
    },

    async listAccounts(user) {
      authenticate(user);
      return [...authorizations.values()].filter((state) => state.userId === user.userId).flatMap((state) => state.accounts.map((account) => account.account));
    },

    getBalance: async (user, accountId) => balanceAt(usableAccount(user, accountId).planned, asOfDay, accountId),
    getPositions: async (user, accountId) => positionsAt(usableAccount(user, accountId).planned, asOfDay, market, accountId),
    getActivities: async (user, accountId, range) => usableAccount(user, accountId).activities.filter((activity) => inRange(activity.tradeDate, range)),
    async getPortfolioValues(user, accountId, range) {
      const state = usableAccount(user, accountId);
      state.values ??= portfolioValues(state.planned, market, asOfDay);
      return state.values.filter((value) => inRange(value.date, range));
    },
  };
}
