import { createMigratedDatabase } from '../../../../test/support/test-database.js';
import type { DatabaseConnection } from '../../../infrastructure/database/database.js';
import { createSandboxMarket } from '../../quotes/sandbox-market/index.js';
import { brokerageLinkContract } from '../brokerage-link-contract.test-support.js';
import { BrokerageLinkError, type BrokerageUser } from '../brokerage-link.port.js';
import { valueHoldings } from '../accounts/holdings-valuation.js';
import { createPersistentSandboxBrokerage, type PersistentSandboxBrokerage } from './persistent-sandbox-brokerage.js';

let connection: DatabaseConnection;
let drop: () => Promise<void>;
let at = Date.parse('2026-11-20T10:00:00.000Z');
const clock = { now: () => new Date(at) };
const market = createSandboxMarket();
const portalUrl = 'http://ledgerline.test/v1/sandbox/brokerage/portal';
/** A new adapter on the same database: a restart, a second instance or a worker. */
const instance = (): PersistentSandboxBrokerage => createPersistentSandboxBrokerage(connection.db, { clock, market, portalUrl });
const sessionOf = (redirectUri: string): string => new URL(redirectUri).searchParams.get('session') ?? '';

beforeAll(async () => {
  const migrated = await createMigratedDatabase();
  connection = migrated.connection;
  drop = async () => {
    await connection.close();
    await migrated.database.drop();
  };
});
afterAll(() => drop());

async function connectedUser(brokerage: PersistentSandboxBrokerage, userId: string): Promise<{ user: BrokerageUser; authorizationId: string }> {
  const user = await brokerage.registerUser(userId);
  const portal = await brokerage.createConnectionPortal({ user });
  const completed = await brokerage.completePortalSession(sessionOf(portal.redirectUri));
  return { user, authorizationId: completed.authorization.id };
}

describe('the sandbox brokerage kept in PostgreSQL', () => {
  it('shows a restarted instance the same users, authorizations, accounts and history', async () => {
    const one = instance();
    const { user, authorizationId } = await connectedUser(one, 'user-restart');
    const accounts = await one.listAccounts(user);
    expect(accounts.map((account) => account.accountType)).toEqual(['individual', 'roth_ira']);
    expect(accounts.every((account) => account.authorizationId === authorizationId)).toBe(true);

    const restarted = instance();
    expect(await restarted.listAuthorizations(user)).toEqual(await one.listAuthorizations(user));
    expect(await restarted.listAccounts(user)).toEqual(accounts);
    for (const account of accounts) {
      expect(await restarted.getActivities(user, account.id)).toEqual(await one.getActivities(user, account.id));
      expect(await restarted.getPositions(user, account.id)).toEqual(await one.getPositions(user, account.id));
      expect(await restarted.getBalance(user, account.id)).toEqual(await one.getBalance(user, account.id));
      expect(await restarted.getPortfolioValues(user, account.id, { startDate: '2026-01-01' })).toEqual(await one.getPortfolioValues(user, account.id, { startDate: '2026-01-01' }));
    }
  });

  it('keeps every past day as it was when the clock moves on, and ends the history today', async () => {
    const brokerage = instance();
    const { user } = await connectedUser(brokerage, 'user-clock');
    const [account] = await brokerage.listAccounts(user);
    const before = { activities: await brokerage.getActivities(user, account!.id), values: await brokerage.getPortfolioValues(user, account!.id, { startDate: '2025-11-20' }) };
    expect(before.values[before.values.length - 1]!.date).toBe('2026-11-20');
    expect(before.values).toHaveLength(366);

    at += 45 * 86_400_000;
    try {
      const later = instance();
      const activities = await later.getActivities(user, account!.id);
      expect(activities.slice(0, before.activities.length)).toEqual(before.activities);
      expect(activities.length).toBeGreaterThan(before.activities.length);
      const values = await later.getPortfolioValues(user, account!.id, { startDate: '2025-11-20' });
      expect(values.slice(0, before.values.length)).toEqual(before.values);
      expect(values[values.length - 1]!.date).toBe('2027-01-04');
    } finally {
      at -= 45 * 86_400_000;
    }
  });

  it('values today’s holdings at the market’s close: positions, cash and the last portfolio value agree to the cent', async () => {
    const brokerage = instance();
    const { user } = await connectedUser(brokerage, 'user-value');
    for (const account of await brokerage.listAccounts(user)) {
      const positions = await brokerage.getPositions(user, account.id);
      for (const position of positions) expect(position.price).toBe(market.priceOn(position.symbol, '2026-11-20'));
      const balance = await brokerage.getBalance(user, account.id);
      const valuation = valueHoldings(balance.cash, positions.map((position) => position.marketValue));
      const [today] = await brokerage.getPortfolioValues(user, account.id, { startDate: '2026-11-20' });
      expect(today).toEqual({ date: '2026-11-20', totalValue: valuation.totalValue, cashValue: valuation.cash, holdingsValue: valuation.holdingsValue });
    }
  });

  it('spends a portal session once, whichever instance completes it, even when two race; refuses an expired or made-up one', async () => {
    const one = instance();
    const other = instance();
    const user = await one.registerUser('user-race');
    const session = sessionOf((await one.createConnectionPortal({ user })).redirectUri);
    const results = await Promise.allSettled([one.completePortalSession(session), other.completePortalSession(session)]);
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
    expect((results.find((result) => result.status === 'rejected') as PromiseRejectedResult).reason).toMatchObject({ code: 'INVALID_PORTAL_SESSION' });
    expect(await one.listAuthorizations(user)).toHaveLength(1);

    const late = sessionOf((await one.createConnectionPortal({ user })).redirectUri);
    at += 5 * 60_000 + 1;
    try {
      await expect(other.completePortalSession(late)).rejects.toMatchObject({ code: 'INVALID_PORTAL_SESSION' });
    } finally {
      at -= 5 * 60_000 + 1;
    }
    await expect(other.completePortalSession('made-up')).rejects.toBeInstanceOf(BrokerageLinkError);
  });

  it('disables an authorization for every instance until a reconnect portal repairs the same one', async () => {
    const one = instance();
    const { user, authorizationId } = await connectedUser(one, 'user-disable');
    const [account] = await one.listAccounts(user);
    await instance().disableAuthorization(authorizationId, 'dropped');
    expect(await one.listAuthorizations(user)).toEqual([expect.objectContaining({ id: authorizationId, status: 'disabled', needsReconnect: true, disabledReason: 'dropped' })]);
    await expect(one.getPositions(user, account!.id)).rejects.toMatchObject({ code: 'AUTHORIZATION_DISABLED' });

    const portal = await one.createConnectionPortal({ user, reconnectAuthorizationId: authorizationId });
    expect(portal).toEqual({ redirectUri: expect.stringMatching(/^http:\/\/ledgerline\.test\/v1\/sandbox\/brokerage\/portal\?session=[\w-]+$/), expiresAt: '2026-11-20T10:05:00.000Z' });
    const repaired = await instance().completePortalSession(sessionOf(portal.redirectUri));
    expect(repaired).toEqual({ userId: 'user-disable', reconnected: true, authorization: expect.objectContaining({ id: authorizationId, status: 'active', disabledReason: null }) });
    expect(await one.listAccounts(user)).toHaveLength(2);
    await expect(one.getPositions(user, account!.id)).resolves.not.toHaveLength(0);
  });

  it('refuses a wrong or replaced secret, another user’s authorization or account, and a removed authorization', async () => {
    const brokerage = instance();
    const { user, authorizationId } = await connectedUser(brokerage, 'user-guard');
    const [account] = await brokerage.listAccounts(user);
    await expect(brokerage.listAccounts({ ...user, userSecret: 'guess' })).rejects.toMatchObject({ code: 'INVALID_USER' });
    const stranger = await brokerage.registerUser('user-stranger');
    await expect(brokerage.getBalance(stranger, account!.id)).rejects.toMatchObject({ code: 'ACCOUNT_NOT_FOUND' });
    await expect(brokerage.createConnectionPortal({ user: stranger, reconnectAuthorizationId: authorizationId })).rejects.toMatchObject({ code: 'AUTHORIZATION_NOT_FOUND' });

    const renewed = await brokerage.registerUser('user-guard');
    await expect(brokerage.listAccounts(user)).rejects.toMatchObject({ code: 'INVALID_USER' });
    await brokerage.removeAuthorization(renewed, authorizationId);
    expect(await brokerage.listAccounts(renewed)).toEqual([]);
    await expect(brokerage.getBalance(renewed, account!.id)).rejects.toMatchObject({ code: 'ACCOUNT_NOT_FOUND' });
  });
});

brokerageLinkContract('the sandbox brokerage kept in PostgreSQL', () => {
  const brokerage = instance();
  return {
    provider: brokerage,
    now: () => clock.now(),
    completePortal: async (redirectUri) => (await brokerage.completePortalSession(sessionOf(redirectUri))).authorization.id,
    disableAuthorization: (authorizationId) => brokerage.disableAuthorization(authorizationId),
  };
});
