import { isoDate } from '../../core/clock.js';
import { BrokerageLinkError, type BrokerageLinkProvider, type BrokerageUser } from './brokerage-link.port.js';

/** What the contract needs of a provider besides the port: the controls its own sandbox offers. */
export interface BrokerageLinkHarness {
  readonly provider: BrokerageLinkProvider;
  now(): Date;
  /** The user goes through the portal opened at `redirectUri`; the authorization it connected (or reconnected). */
  completePortal(redirectUri: string): Promise<string>;
  /** The brokerage ends the connection. */
  disableAuthorization(authorizationId: string): Promise<void>;
}

const DECIMAL = /^-?\d+(\.\d+)?$/;
const ISO_DAY = /^\d{4}-\d{2}-\d{2}$/;
const RETURN_URL = 'https://ledgerline.example/v1/brokerage/portal/return?session=contract';

/** `units × price` to the cent, half away from zero, in plain numbers (the contract's own arithmetic, not the adapter's). */
const cents = (units: string, price: string) => Math.round(Number(units) * Number(price) * 100);

const expectBrokerageLinkError = async (promise: Promise<unknown>, code: string): Promise<void> => {
  const error = await promise.then(
    () => null,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(BrokerageLinkError);
  expect(error).toMatchObject({ code });
};

let users = 0;

/**
 * The behaviour every brokerage-link adapter shows, whatever the provider: the sandbox (over
 * PostgreSQL) and SnapTrade (over its recorded HTTP exchanges) both run it.
 */
export function brokerageLinkContract(name: string, harness: () => BrokerageLinkHarness): void {
  describe(`${name}: brokerage-link port contract`, () => {
    async function connected(): Promise<{ user: BrokerageUser; authorizationId: string }> {
      const { provider, completePortal } = harness();
      users += 1;
      const user = await provider.registerUser(`contract-user-${users}-${Date.now()}`);
      const portal = await provider.createConnectionPortal({ user, returnUrl: RETURN_URL });
      return { user, authorizationId: await completePortal(portal.redirectUri) };
    }

    it('registers a user with a secret, and opens a connection portal for them that expires within minutes', async () => {
      const { provider, now } = harness();
      const user = await provider.registerUser(`contract-portal-${Date.now()}`);
      expect(user.userSecret.length).toBeGreaterThan(0);
      const portal = await provider.createConnectionPortal({ user, returnUrl: RETURN_URL });
      expect(() => new URL(portal.redirectUri)).not.toThrow();
      const expiresIn = Date.parse(portal.expiresAt) - now().getTime();
      expect(expiresIn).toBeGreaterThan(0);
      expect(expiresIn).toBeLessThanOrEqual(60 * 60_000);
    });

    it('lists the authorization the portal connected, active, and its accounts as the port describes them', async () => {
      const { provider } = harness();
      const { user, authorizationId } = await connected();
      const authorizations = await provider.listAuthorizations(user);
      expect(authorizations).toEqual([
        { id: authorizationId, brokerage: { id: expect.any(String), name: expect.any(String), logo: authorizations[0]!.brokerage.logo }, status: 'active', needsReconnect: false, disabledReason: null, createdAt: expect.any(String) },
      ]);
      expect(new Date(authorizations[0]!.createdAt).toISOString()).toBe(authorizations[0]!.createdAt);
      const accounts = await provider.listAccounts(user);
      expect(accounts.length).toBeGreaterThan(0);
      for (const account of accounts) {
        expect(account).toEqual({ id: expect.any(String), authorizationId, name: expect.any(String), number: expect.any(String), institutionName: expect.any(String), accountType: account.accountType, status: account.status, currency: account.currency });
        expect(['individual', 'roth_ira', 'traditional_ira', '401k', 'other']).toContain(account.accountType);
        expect(['open', 'closed']).toContain(account.status);
        expect(account.currency).toMatch(/^[A-Z]{3}$/);
      }
      expect(new Set(accounts.map((account) => account.id)).size).toBe(accounts.length);
    });

    it('gives each account’s balance, positions valued to the cent, and activities dated and signed by their effect on cash', async () => {
      const { provider, now } = harness();
      const { user } = await connected();
      const today = isoDate(now());
      for (const account of await provider.listAccounts(user)) {
        const balance = await provider.getBalance(user, account.id);
        expect(balance).toEqual({ accountId: account.id, currency: expect.stringMatching(/^[A-Z]{3}$/), cash: expect.stringMatching(DECIMAL), buyingPower: expect.stringMatching(DECIMAL) });
        for (const position of await provider.getPositions(user, account.id)) {
          expect(position.accountId).toBe(account.id);
          for (const amount of [position.units, position.averagePrice, position.price, position.marketValue]) expect(amount).toMatch(DECIMAL);
          expect(Math.round(Number(position.marketValue) * 100)).toBe(cents(position.units, position.price));
        }
        const activities = await provider.getActivities(user, account.id);
        for (const activity of activities) {
          expect(activity.accountId).toBe(account.id);
          expect(['BUY', 'SELL', 'DIVIDEND', 'FEE', 'CONTRIBUTION', 'TRANSFER']).toContain(activity.type);
          expect(activity.tradeDate).toMatch(ISO_DAY);
          expect(activity.tradeDate <= today).toBe(true);
          expect(activity.settlementDate).toMatch(ISO_DAY);
          expect(activity.amount).toMatch(DECIMAL);
          if (activity.type === 'BUY' || activity.type === 'FEE') expect(Number(activity.amount)).toBeLessThanOrEqual(0);
          if (activity.type === 'SELL' || activity.type === 'DIVIDEND' || activity.type === 'CONTRIBUTION') expect(Number(activity.amount)).toBeGreaterThanOrEqual(0);
          if (activity.type === 'BUY' || activity.type === 'SELL') expect([activity.symbol, activity.units, activity.price].every((value) => value !== null)).toBe(true);
        }
        expect(new Set(activities.map((activity) => activity.id)).size).toBe(activities.length);
        if (activities.length > 1) {
          const from = activities[Math.floor(activities.length / 2)]!.tradeDate;
          const later = await provider.getActivities(user, account.id, { startDate: from });
          expect(later.length).toBeGreaterThan(0);
          expect(later.every((activity) => activity.tradeDate >= from)).toBe(true);
          expect(later.map((activity) => activity.id)).toEqual(activities.filter((activity) => activity.tradeDate >= from).map((activity) => activity.id));
        }
        for (const value of await provider.getPortfolioValues(user, account.id, { startDate: activities[0]?.tradeDate ?? today })) {
          expect(Math.round(Number(value.totalValue) * 100)).toBe(Math.round(Number(value.cashValue) * 100) + Math.round(Number(value.holdingsValue) * 100));
        }
      }
    });

    it('refuses an account’s data while its authorization is disabled, lists it as needing a reconnect, and a reconnect portal repairs that same one', async () => {
      const { provider, completePortal, disableAuthorization } = harness();
      const { user, authorizationId } = await connected();
      const [account] = await provider.listAccounts(user);
      await disableAuthorization(authorizationId);
      expect(await provider.listAuthorizations(user)).toEqual([expect.objectContaining({ id: authorizationId, status: 'disabled', needsReconnect: true, disabledReason: expect.any(String) })]);
      await expectBrokerageLinkError(provider.getPositions(user, account!.id), 'AUTHORIZATION_DISABLED');
      await expectBrokerageLinkError(provider.getBalance(user, account!.id), 'AUTHORIZATION_DISABLED');
      const portal = await provider.createConnectionPortal({ user, reconnectAuthorizationId: authorizationId, returnUrl: RETURN_URL });
      expect(await completePortal(portal.redirectUri)).toBe(authorizationId);
      expect(await provider.listAuthorizations(user)).toEqual([expect.objectContaining({ id: authorizationId, status: 'active', needsReconnect: false })]);
      await expect(provider.getPositions(user, account!.id)).resolves.toBeInstanceOf(Array);
    });

    it('refuses a wrong secret, another user’s account, and a reconnect of another user’s authorization', async () => {
      const { provider } = harness();
      const { user, authorizationId } = await connected();
      const [account] = await provider.listAccounts(user);
      await expectBrokerageLinkError(provider.listAccounts({ ...user, userSecret: 'not-the-secret' }), 'INVALID_USER');
      const stranger = await provider.registerUser(`contract-stranger-${Date.now()}`);
      await expectBrokerageLinkError(provider.getBalance(stranger, account!.id), 'ACCOUNT_NOT_FOUND');
      await expectBrokerageLinkError(provider.createConnectionPortal({ user: stranger, reconnectAuthorizationId: authorizationId, returnUrl: RETURN_URL }), 'AUTHORIZATION_NOT_FOUND');
    });

    it('removes an authorization: it and its accounts are gone', async () => {
      const { provider } = harness();
      const { user, authorizationId } = await connected();
      const [account] = await provider.listAccounts(user);
      await provider.removeAuthorization(user, authorizationId);
      expect(await provider.listAuthorizations(user)).toEqual([]);
      expect(await provider.listAccounts(user)).toEqual([]);
      await expectBrokerageLinkError(provider.getBalance(user, account!.id), 'ACCOUNT_NOT_FOUND');
      await expectBrokerageLinkError(provider.removeAuthorization(user, authorizationId), 'AUTHORIZATION_NOT_FOUND');
    });
  });
}
