import { type Account, type AccountUniversalActivity, Snaptrade, SnaptradeAuth } from 'snaptrade-typescript-sdk';
import type { Clock } from '../../../../core/clock.js';
import { BrokerageLinkError, type BrokerageActivity, type BrokerageLinkProvider, type BrokerageUser } from '../../brokerage-link.port.js';
import { SnapTradeApiError, snapTradeCall } from './snaptrade-api-error.js';
import { accountOf, activityOf, authorizationOf, balanceOf, isInvestmentAccount, positionsOf } from './snaptrade-mapping.js';

export interface SnapTradeBrokerageOptions {
  readonly clientId: string;
  readonly consumerKey: string;
  /** `https://api.snaptrade.com`, or another address serving SnapTrade's API (a proxy, the tests' recorded exchanges). */
  readonly basePath: string;
  readonly clock: Clock;
  readonly timeoutMs?: number;
}

/** SnapTrade's connection portal link is good for five minutes. */
const PORTAL_LINK_TTL_MS = 5 * 60_000;
/** SnapTrade's largest page of activities. */
const ACTIVITY_PAGE = 1000;
const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * The brokerage-link port over SnapTrade's API with its official SDK, which signs every request
 * with the consumer key (HMAC-SHA256 over the body, path and query, as SnapTrade specifies).
 * SnapTrade answers a disabled connection's data from its cache rather than refusing it; the port
 * refuses it (AUTHORIZATION_DISABLED), so every data call first checks the account's connection.
 * SnapTrade has no history of an account's value split into cash and holdings: portfolio values
 * are none, and an account's snapshots start on the day of its first sync.
 */
export function createSnapTradeBrokerage(options: SnapTradeBrokerageOptions): BrokerageLinkProvider {
  const snaptrade = new Snaptrade({
    auth: SnaptradeAuth.commercialApiKey({ clientId: options.clientId, consumerKey: options.consumerKey }),
    basePath: options.basePath,
    baseOptions: { timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS },
  });
  /** A sync asks for one account's data four times at once: its connection is checked once for the four, and afresh for the next ask. */
  const checking = new Map<string, Promise<Account>>();
  const as = (user: BrokerageUser) => ({ userId: user.userId, userSecret: user.userSecret });

  /** The account, if it is one of the user's investment accounts and its connection works; refused otherwise. */
  function usableAccount(user: BrokerageUser, accountId: string): Promise<Account> {
    const key = `${user.userId}\u0000${user.userSecret}\u0000${accountId}`;
    const running = checking.get(key);
    if (running) return running;
    const account = (async () => {
      const found = await snapTradeCall('accounts/{id}', () => snaptrade.accountInformation.getUserAccountDetails({ ...as(user), accountId }), { notFound: 'ACCOUNT_NOT_FOUND', userScoped: true });
      if (!isInvestmentAccount(found)) throw new BrokerageLinkError('ACCOUNT_NOT_FOUND', `Account ${accountId} is not an investment account`);
      const connection = await snapTradeCall('authorizations/{id}', () => snaptrade.connections.detailBrokerageAuthorization({ ...as(user), authorizationId: found.brokerage_authorization }), { notFound: 'ACCOUNT_NOT_FOUND', userScoped: true });
      if (connection.disabled === true) throw new BrokerageLinkError('AUTHORIZATION_DISABLED', 'The connection is disabled; the user must reconnect');
      return found;
    })().finally(() => checking.delete(key));
    checking.set(key, account);
    return account;
  }
  const currencyOf = (account: Account) => account.balance?.total?.currency ?? 'USD';

  return {
    async registerUser(userId) {
      const registered = await snapTradeCall('snapTrade/registerUser', () => snaptrade.authentication.registerSnapTradeUser({ userId }));
      if (!registered.userId || !registered.userSecret) throw new SnapTradeApiError('snapTrade/registerUser', 200, null, 'no user id or secret in the answer');
      return { userId: registered.userId, userSecret: registered.userSecret };
    },

    async createConnectionPortal({ user, reconnectAuthorizationId, returnUrl }) {
      // SnapTrade would open any id; the port refuses one that is not the user's.
      if (reconnectAuthorizationId !== undefined) {
        await snapTradeCall('authorizations/{id}', () => snaptrade.connections.detailBrokerageAuthorization({ ...as(user), authorizationId: reconnectAuthorizationId }), { notFound: 'AUTHORIZATION_NOT_FOUND', userScoped: true });
      }
      const login = await snapTradeCall(
        'snapTrade/login',
        () =>
          snaptrade.authentication.loginSnapTradeUser({
            ...as(user),
            immediateRedirect: true,
            connectionType: 'read',
            ...(returnUrl === undefined ? {} : { customRedirect: returnUrl }),
            ...(reconnectAuthorizationId === undefined ? {} : { reconnect: reconnectAuthorizationId }),
          }),
        { userScoped: true },
      );
      const redirectUri = (login as { redirectURI?: unknown }).redirectURI;
      if (typeof redirectUri !== 'string') throw new SnapTradeApiError('snapTrade/login', 200, null, 'no redirectURI in the answer (an encrypted answer is not supported)');
      return { redirectUri, expiresAt: new Date(options.clock.now().getTime() + PORTAL_LINK_TTL_MS).toISOString() };
    },

    async listAuthorizations(user) {
      return (await snapTradeCall('authorizations', () => snaptrade.connections.listBrokerageAuthorizations(as(user)), { userScoped: true })).map(authorizationOf);
    },

    async removeAuthorization(user, authorizationId) {
      await snapTradeCall('authorizations/{id} DELETE', () => snaptrade.connections.removeBrokerageAuthorization({ ...as(user), authorizationId }), { notFound: 'AUTHORIZATION_NOT_FOUND', userScoped: true });
    },

    async listAccounts(user) {
      return (await snapTradeCall('accounts', () => snaptrade.accountInformation.listUserAccounts(as(user)), { userScoped: true })).filter(isInvestmentAccount).map(accountOf);
    },

    async getBalance(user, accountId) {
      const account = await usableAccount(user, accountId);
      const balances = await snapTradeCall('accounts/{id}/balances', () => snaptrade.accountInformation.getUserAccountBalance({ ...as(user), accountId }), { notFound: 'ACCOUNT_NOT_FOUND', userScoped: true });
      return balanceOf(accountId, currencyOf(account), balances);
    },

    async getPositions(user, accountId) {
      const account = await usableAccount(user, accountId);
      const positions = await snapTradeCall('accounts/{id}/positions/all', () => snaptrade.accountInformation.getAllAccountPositions({ ...as(user), accountId }), { notFound: 'ACCOUNT_NOT_FOUND', userScoped: true });
      return positionsOf(accountId, currencyOf(account), positions.results ?? []);
    },

    async getActivities(user, accountId, range = {}) {
      const account = await usableAccount(user, accountId);
      const all: AccountUniversalActivity[] = [];
      for (let offset = 0; ; offset += ACTIVITY_PAGE) {
        const page = await snapTradeCall(
          'accounts/{id}/activities',
          () => snaptrade.accountInformation.getAccountActivities({ ...as(user), accountId, offset, limit: ACTIVITY_PAGE, ...(range.startDate ? { startDate: range.startDate } : {}), ...(range.endDate ? { endDate: range.endDate } : {}) }),
          { notFound: 'ACCOUNT_NOT_FOUND', userScoped: true },
        );
        const data = page.data ?? [];
        all.push(...data);
        const total = page.pagination?.total;
        if (data.length < ACTIVITY_PAGE || (typeof total === 'number' && offset + data.length >= total)) break;
      }
      // Oldest first, as the sandbox gives them (SnapTrade's newest first); the same activity on two pages is one.
      const unique = new Map(all.flatMap((activity) => activityOf(accountId, currencyOf(account), activity) ?? []).map((activity) => [activity.id, activity]));
      return [...unique.values()].sort((a: BrokerageActivity, b: BrokerageActivity) => a.tradeDate.localeCompare(b.tradeDate) || a.id.localeCompare(b.id));
    },

    async getPortfolioValues(user, accountId) {
      await usableAccount(user, accountId);
      return [];
    },
  };
}
