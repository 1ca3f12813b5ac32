/**
 * The brokerage-link provider port (SnapTrade-like; SnapTrade's adapter is `./provider/snaptrade`,
 * and it and the sandbox pass `brokerage-link-contract.test-support.ts`): a user registered with the provider connects
 * brokerages through a hosted portal; each connection is an authorization holding accounts.
 * Money, prices and units are decimal strings. An activity's `amount` is its signed effect on
 * cash, fees included: BUY and FEE negative; SELL, DIVIDEND and CONTRIBUTION positive; TRANSFER
 * either way. So `cash = Σ amount` and a position's units = Σ BUY units − Σ SELL units.
 */
export interface BrokerageUser {
  readonly userId: string;
  readonly userSecret: string;
}

export interface ConnectionPortal {
  readonly redirectUri: string;
  readonly expiresAt: string;
}

export interface Brokerage {
  readonly id: string;
  readonly name: string;
  readonly logo: string | null;
}

export interface BrokerageAuthorization {
  readonly id: string;
  readonly brokerage: Brokerage;
  readonly status: 'active' | 'disabled';
  /** True while disabled: the user must reconnect through the portal (`reconnectAuthorizationId`). */
  readonly needsReconnect: boolean;
  readonly disabledReason: string | null;
  readonly createdAt: string;
}

export interface BrokerageAccount {
  readonly id: string;
  readonly authorizationId: string;
  readonly name: string;
  /** Masked account number. */
  readonly number: string;
  readonly institutionName: string;
  /** `other`: a type the provider names that is none of these (its subtype in GET /accounts is `other`). */
  readonly accountType: 'individual' | 'roth_ira' | 'traditional_ira' | '401k' | 'other';
  readonly status: 'open' | 'closed';
  readonly currency: string;
}

export interface BrokerageBalance {
  readonly accountId: string;
  readonly currency: string;
  readonly cash: string;
  readonly buyingPower: string;
}

export interface BrokeragePosition {
  readonly accountId: string;
  readonly symbol: string;
  readonly description: string;
  readonly currency: string;
  readonly units: string;
  /** Average cost per unit of the units still held. */
  readonly averagePrice: string;
  readonly price: string;
  /** `units × price`, rounded half up to the cent. */
  readonly marketValue: string;
}

export type BrokerageActivityType = 'BUY' | 'SELL' | 'DIVIDEND' | 'FEE' | 'CONTRIBUTION' | 'TRANSFER';

export interface BrokerageActivity {
  readonly id: string;
  readonly accountId: string;
  readonly type: BrokerageActivityType;
  readonly symbol: string | null;
  readonly description: string;
  readonly currency: string;
  readonly amount: string;
  readonly fee: string;
  readonly price: string | null;
  readonly units: string | null;
  readonly tradeDate: string;
  readonly settlementDate: string;
}

/** End-of-day value: `totalValue = holdingsValue + cashValue`, holdings at that day's closes. */
export interface PortfolioValue {
  readonly date: string;
  readonly totalValue: string;
  readonly cashValue: string;
  readonly holdingsValue: string;
}

export interface DateRange {
  readonly startDate?: string;
  readonly endDate?: string;
}

export type BrokerageLinkErrorCode =
  | 'INVALID_USER'
  | 'AUTHORIZATION_NOT_FOUND'
  | 'ACCOUNT_NOT_FOUND'
  | 'AUTHORIZATION_DISABLED'
  | 'BROKERAGE_NOT_FOUND'
  /** A connection portal's session that is unknown, expired or already used. */
  | 'INVALID_PORTAL_SESSION';

export class BrokerageLinkError extends Error {
  constructor(
    readonly code: BrokerageLinkErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'BrokerageLinkError';
  }
}

export interface BrokerageLinkProvider {
  registerUser(userId: string): Promise<BrokerageUser>;
  /**
   * The portal's address. A provider that hosts its own portal sends the browser to `returnUrl`
   * when the user is done there (the service then asks it what the user connected); the
   * sandbox's portal is a page of the service and completes the connection itself.
   */
  createConnectionPortal(request: { user: BrokerageUser; reconnectAuthorizationId?: string; returnUrl?: string }): Promise<ConnectionPortal>;
  listAuthorizations(user: BrokerageUser): Promise<BrokerageAuthorization[]>;
  removeAuthorization(user: BrokerageUser, authorizationId: string): Promise<void>;
  listAccounts(user: BrokerageUser): Promise<BrokerageAccount[]>;
  /** The data calls fail with AUTHORIZATION_DISABLED while the account's authorization is disabled. */
  getBalance(user: BrokerageUser, accountId: string): Promise<BrokerageBalance>;
  getPositions(user: BrokerageUser, accountId: string): Promise<BrokeragePosition[]>;
  getActivities(user: BrokerageUser, accountId: string, range?: DateRange): Promise<BrokerageActivity[]>;
  getPortfolioValues(user: BrokerageUser, accountId: string, range?: DateRange): Promise<PortfolioValue[]>;
}
