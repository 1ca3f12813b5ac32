import type { DomainEvent } from '../../core/events.js';
import { nameBasedId } from '../../core/ids.js';

/**
 * The brokerage events: what the connect flow, the sync job and the daily snapshot job append,
 * and what the brokerage read models and the accounts read model are built from.
 * Money, prices and units are decimal strings, as the provider port gives them.
 *
 * Two kinds of stream:
 * - `brokerage-authorization-<authorizationUuid>`: one connection to a brokerage (its state: active,
 *   disabled, reconnected) and the accounts it brought;
 * - `brokerage-account-<accountId>`: one investment account's data (activities, holdings, snapshots).
 */
export interface BrokerageInstitution {
  /** The provider's brokerage id, e.g. `brk_parkside`. */
  readonly id: string;
  readonly name: string;
  readonly logo: string | null;
}

/** A provider account as the service keeps it: the provider's fields beside the service's own id. */
export interface BrokerageAccountData {
  /** The service's UUID for the account: `brokerageAccountIdOf(userId, brokerageAccountId)`. */
  readonly accountId: string;
  /** The provider's account id (`brokerageAccountId`, `accountDetails.id` in the API). */
  readonly brokerageAccountId: string;
  readonly name: string;
  /** Masked account number, e.g. `****1234`. */
  readonly number: string;
  readonly institutionName: string;
  /** The provider's account type: individual, roth_ira, traditional_ira, 401k. */
  readonly accountType: string;
  /** The provider's account status: open, closed. */
  readonly accountStatus: string;
  readonly currency: string;
}

export type BrokerageAuthorizationConnected = DomainEvent<
  'BrokerageAuthorizationConnected',
  {
    authorizationUuid: string;
    /** The provider's authorization id: `brokerageAuthorizationId` everywhere in the API. */
    brokerageAuthorizationId: string;
    provider: string;
    brokerage: BrokerageInstitution;
    accounts: BrokerageAccountData[];
  }
>;
/** The provider dropped the connection: its accounts show `needsReauth` until a reconnect. */
export type BrokerageAuthorizationDisabled = DomainEvent<'BrokerageAuthorizationDisabled', { authorizationUuid: string; reason: string }>;
/** The user went through the portal again with `reconnectAuthorizationId`: syncing resumes; accounts new at the provider join. */
export type BrokerageAuthorizationReconnected = DomainEvent<'BrokerageAuthorizationReconnected', { authorizationUuid: string; addedAccounts: BrokerageAccountData[] }>;

/**
 * The user disconnected one of the authorization's accounts (DELETE /accounts/{id}): it leaves every
 * list, its history stays in its stream, and syncs and reconnects of this authorization do not bring
 * it back. The last one takes the authorization with it: `BrokerageAuthorizationDisconnected` follows.
 */
export type BrokerageAuthorizationAccountDisconnected = DomainEvent<'BrokerageAuthorizationAccountDisconnected', { authorizationUuid: string; accountId: string }>;
/** The user disconnected the connection (DELETE /brokerage/authorizations/{id}): it and `accountIds` leave every list; syncs stop. */
export type BrokerageAuthorizationDisconnected = DomainEvent<'BrokerageAuthorizationDisconnected', { authorizationUuid: string; brokerageAuthorizationId: string; accountIds: string[] }>;

export type BrokerageAuthorizationEvent =
  | BrokerageAuthorizationConnected
  | BrokerageAuthorizationDisabled
  | BrokerageAuthorizationReconnected
  | BrokerageAuthorizationAccountDisconnected
  | BrokerageAuthorizationDisconnected;

export const BROKERAGE_AUTHORIZATION_EVENT_TYPES: readonly BrokerageAuthorizationEvent['type'][] = [
  'BrokerageAuthorizationConnected',
  'BrokerageAuthorizationDisabled',
  'BrokerageAuthorizationReconnected',
  'BrokerageAuthorizationAccountDisconnected',
  'BrokerageAuthorizationDisconnected',
];

export type BrokerageActivityType = 'BUY' | 'SELL' | 'DIVIDEND' | 'FEE' | 'CONTRIBUTION' | 'TRANSFER';

export interface BrokerageActivityData {
  /** The service's UUID for the activity: `brokerageActivityIdOf(accountId, providerActivityId)`. */
  readonly id: string;
  /** The provider's activity id (`activityId` in the API). */
  readonly providerActivityId: string;
  readonly type: BrokerageActivityType;
  readonly symbol: string | null;
  readonly description: string;
  readonly currency: string;
  /** Signed effect on cash, fees included (BUY and FEE negative). */
  readonly amount: string;
  readonly fee: string;
  readonly price: string | null;
  readonly units: string | null;
  readonly tradeDate: string;
  readonly settlementDate: string;
}

export interface BrokeragePositionData {
  readonly symbol: string;
  readonly description: string;
  readonly currency: string;
  readonly units: string;
  readonly averagePrice: string;
  readonly price: string;
  /** `units × price`, rounded half up to the cent, as the provider gave it. */
  readonly marketValue: string;
}

/** Activities the account did not have yet (by `providerActivityId`), oldest first. */
export type BrokerageActivitiesImported = DomainEvent<'BrokerageActivitiesImported', { accountId: string; activities: BrokerageActivityData[] }>;

/**
 * The account's holdings as of `asOf` (an ISO timestamp): cash, buying power and every position.
 * `holdingsValue = Σ positions.marketValue`, `totalValue = cash + holdingsValue`: the account's
 * balance, the overview's positions and today's portfolio snapshot are all this one valuation.
 * Appended only when something in it moved.
 */
export type BrokerageHoldingsRefreshed = DomainEvent<
  'BrokerageHoldingsRefreshed',
  {
    accountId: string;
    asOf: string;
    currency: string;
    cash: string;
    buyingPower: string;
    holdingsValue: string;
    totalValue: string;
    positions: BrokeragePositionData[];
  }
>;

export interface PortfolioSnapshotData {
  /** `YYYY-MM-DD`; one snapshot per account per day, the later one wins. */
  readonly date: string;
  readonly totalValue: string;
  readonly cashValue: string;
  readonly holdingsValue: string;
  readonly currency: string;
}

/** End-of-day values of one account: today's from the daily job, a year of them back-filled at the first sync. */
export type PortfolioSnapshotsTaken = DomainEvent<'PortfolioSnapshotsTaken', { accountId: string; snapshots: PortfolioSnapshotData[] }>;

export type BrokerageAccountEvent = BrokerageActivitiesImported | BrokerageHoldingsRefreshed | PortfolioSnapshotsTaken;

export const BROKERAGE_ACCOUNT_EVENT_TYPES: readonly BrokerageAccountEvent['type'][] = ['BrokerageActivitiesImported', 'BrokerageHoldingsRefreshed', 'PortfolioSnapshotsTaken'];

export const BROKERAGE_AUTHORIZATION_STREAM_PREFIX = 'brokerage-authorization-';
export const BROKERAGE_ACCOUNT_STREAM_PREFIX = 'brokerage-account-';

export const brokerageAuthorizationStreamId = (authorizationUuid: string): string => `${BROKERAGE_AUTHORIZATION_STREAM_PREFIX}${authorizationUuid}`;
export const brokerageAccountStreamId = (accountId: string): string => `${BROKERAGE_ACCOUNT_STREAM_PREFIX}${accountId}`;

const AUTHORIZATION_NAMESPACE = '3f1d8a52-7b0e-4c61-9d2a-6e5b4c3a2f10';
const ACCOUNT_NAMESPACE = 'c4a7e913-58d2-4b0f-a6e1-2b9d7f3c5e84';
const ACTIVITY_NAMESPACE = '8d2b6f0a-1c3e-4a59-b7d4-9e0f2a6c8b31';

/** Name-based on (user, provider authorization id): a path's id names the stream without a lookup; another user's is a stream this user does not have. */
export const brokerageAuthorizationUuidOf = (userId: string, brokerageAuthorizationId: string): string =>
  nameBasedId(AUTHORIZATION_NAMESPACE, `${userId}\n${brokerageAuthorizationId}`);

/** An investment account's one id: the same in /accounts, /brokerage/accounts and every `accountId`. */
export const brokerageAccountIdOf = (userId: string, brokerageAccountId: string): string => nameBasedId(ACCOUNT_NAMESPACE, `${userId}\n${brokerageAccountId}`);

export const brokerageActivityIdOf = (accountId: string, providerActivityId: string): string => nameBasedId(ACTIVITY_NAMESPACE, `${accountId}\n${providerActivityId}`);
