import { startSnapTradeMock, type SnapTradeMock } from '../../../../../test/support/snaptrade-mock.js';
import { brokerageLinkContract } from '../../brokerage-link-contract.test-support.js';
import type { BrokerageLinkProvider } from '../../brokerage-link.port.js';
import { SnapTradeApiError } from './snaptrade-api-error.js';
import { createSnapTradeBrokerage } from './snaptrade-brokerage.js';

const clock = { now: () => new Date() };
let mock: SnapTradeMock;
let snapTrade: BrokerageLinkProvider;

beforeAll(async () => {
  mock = await startSnapTradeMock();
  snapTrade = createSnapTradeBrokerage({ clientId: mock.clientId, consumerKey: mock.consumerKey, basePath: mock.url, clock });
});
afterAll(() => mock.close());

brokerageLinkContract('SnapTrade over its recorded exchanges', () => ({
  provider: snapTrade,
  now: clock.now,
  completePortal: async (redirectUri) => mock.completePortal(redirectUri).authorizationId,
  disableAuthorization: async (authorizationId) => mock.disable(authorizationId),
}));

describe('the SnapTrade adapter', () => {
  const portalOf = async (userId: string) => {
    const user = await snapTrade.registerUser(userId);
    const portal = await snapTrade.createConnectionPortal({ user, returnUrl: 'https://ledgerline.example/v1/brokerage/portal/return?session=s1' });
    return { user, portal };
  };

  it('signs every request as SnapTrade checks it, and asks the portal to send the browser back to the return URL, read-only', async () => {
    const { user, portal } = await portalOf(`signed-${Date.now()}`);
    const { authorizationId, returnTo } = mock.completePortal(portal.redirectUri);
    expect(returnTo).toBe('https://ledgerline.example/v1/brokerage/portal/return?session=s1');
    await snapTrade.createConnectionPortal({ user, reconnectAuthorizationId: authorizationId });
    const logins = mock.requests.filter((request) => request.path === '/snapTrade/login').slice(-2).map((request) => request.body);
    expect(logins).toEqual([
      { immediateRedirect: true, connectionType: 'read', customRedirect: 'https://ledgerline.example/v1/brokerage/portal/return?session=s1' },
      { immediateRedirect: true, connectionType: 'read', reconnect: authorizationId },
    ]);
    // The mock refused any request whose signature did not verify: every one so far carried one, and the client id.
    expect(mock.requests.every((request) => typeof request.headers.signature === 'string' && request.query.get('clientId') === mock.clientId)).toBe(true);

    const wrongKey = createSnapTradeBrokerage({ clientId: mock.clientId, consumerKey: 'not-the-consumer-key', basePath: mock.url, clock });
    const refused = await wrongKey.listAccounts(user).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(SnapTradeApiError);
    expect(refused).toMatchObject({ status: 401, errorCode: '1076' });
  });

  // A 429 the SDK retries by itself (5, 10 and 20 s later), so it is not played here.
  it('never carries the user’s secret (SnapTrade has it in the query) or the consumer key in an error; a brokerage outage stays SnapTrade’s error, a disabled connection’s 402 is AUTHORIZATION_DISABLED', async () => {
    const { user, portal } = await portalOf(`errors-${Date.now()}`);
    mock.completePortal(portal.redirectUri);
    const [account] = await snapTrade.listAccounts(user);
    const failures: unknown[] = [];
    mock.failNext(`/accounts/${account!.id}/positions`, 'brokerage-unavailable');
    failures.push(await snapTrade.getPositions(user, account!.id).catch((error: unknown) => error));
    failures.push(await snapTrade.listAccounts({ ...user, userSecret: `${user.userSecret}-wrong` }).catch((error: unknown) => error));
    mock.failNext(`/accounts/${account!.id}/balances`, 'connection-disabled');
    failures.push(await snapTrade.getBalance(user, account!.id).catch((error: unknown) => error));
    expect(failures[0]).toMatchObject({ status: 503, errorCode: '3002' });
    expect(failures[0]).toBeInstanceOf(SnapTradeApiError);
    expect(failures[1]).toMatchObject({ code: 'INVALID_USER' });
    // SnapTrade's 402 (a call that needs the brokerage, on a disabled connection) is the port's AUTHORIZATION_DISABLED.
    expect(failures[2]).toMatchObject({ code: 'AUTHORIZATION_DISABLED' });
    for (const failure of failures) {
      const everything = JSON.stringify(failure, Object.getOwnPropertyNames(failure)) + String((failure as Error).stack);
      expect(everything).not.toContain(user.userSecret);
      expect(everything).not.toContain(mock.consumerKey);
    }
  });

  it('maps the recorded accounts, positions and activities: investment accounts only, options and cash equivalents left out, activities oldest first', async () => {
    const { user, portal } = await portalOf(`data-${Date.now()}`);
    mock.completePortal(portal.redirectUri);
    const accounts = await snapTrade.listAccounts(user);
    expect(accounts.map((account) => [account.name, account.accountType, account.number])).toEqual([
      ['Alpaca Individual', 'individual', '****3921'],
      ['Alpaca Roth IRA', 'roth_ira', '****7704'],
    ]);
    expect((await snapTrade.getPositions(user, accounts[0]!.id)).map((position) => position.symbol)).toEqual(['AAPL', 'VTI']);
    expect(await snapTrade.getBalance(user, accounts[0]!.id)).toEqual({ accountId: accounts[0]!.id, currency: 'USD', cash: '3016.33', buyingPower: '6032.66' });
    const activities = await snapTrade.getActivities(user, accounts[0]!.id);
    expect(activities.map((activity) => activity.tradeDate)).toEqual([...activities.map((activity) => activity.tradeDate)].sort());
    expect(activities).toHaveLength(9);
    expect(await snapTrade.getPortfolioValues(user, accounts[0]!.id)).toEqual([]);
  });
});
