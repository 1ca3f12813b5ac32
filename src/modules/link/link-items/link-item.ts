import { unhandled } from '../../../core/exhaustive.js';
import type { DomainEvent } from '../../../core/events.js';
import { nameBasedId } from '../../../core/ids.js';
import type { AccountType } from '../../accounts/account.js';

/** A provider account as the service keeps it: the provider's fields beside the service's own id, type and subtype. */
export interface LinkedAccountData {
  /** The service's UUID for the account (name-based: the same user, item and provider account give the same id). */
  readonly accountId: string;
  readonly linkAccountId: string;
  readonly name: string;
  readonly officialName: string | null;
  readonly mask: string | null;
  /** The provider's own type and subtype, as it sent them. */
  readonly providerType: string;
  readonly providerSubtype: string | null;
  /** Mapped into the service's vocabulary (`SUBTYPES_BY_TYPE`). */
  readonly type: AccountType;
  readonly subtype: string | null;
  readonly currency: string;
  /** Decimal strings, signed as the port says: liabilities negative. */
  readonly balances: { readonly current: string | null; readonly available: string | null; readonly limit: string | null };
}

export interface LinkInstitution {
  readonly id: string;
  readonly name: string;
  readonly logo: string | null;
  readonly url: string | null;
}

export interface LinkItemError {
  readonly errorCode: string;
  readonly errorMessage: string;
}

export type LinkItemLinked = DomainEvent<
  'LinkItemLinked',
  {
    linkItemUuid: string;
    /** The provider's item id: `linkItemId` everywhere in the API. */
    linkItemId: string;
    provider: string;
    institution: LinkInstitution;
    accounts: LinkedAccountData[];
    availableProducts: string[];
    billedProducts: string[];
  }
>;
export type LinkItemLoginRequired = DomainEvent<'LinkItemLoginRequired', { linkItemUuid: string; error: LinkItemError }>;
export type LinkItemErrored = DomainEvent<'LinkItemErrored', { linkItemUuid: string; error: LinkItemError }>;
export type LinkItemLoginRepaired = DomainEvent<'LinkItemLoginRepaired', { linkItemUuid: string }>;
export type LinkItemPendingDisconnect = DomainEvent<'LinkItemPendingDisconnect', { linkItemUuid: string; disconnectAt: string }>;
export type LinkItemNewAccountsAvailable = DomainEvent<'LinkItemNewAccountsAvailable', { linkItemUuid: string }>;
/**
 * The user went through the provider's link flow again for an item they have (update mode): their
 * login works again, the accounts they added join the item, and the item's alerts clear (login
 * required, new accounts available, a pending disconnect or consent expiration).
 */
export type LinkItemReconnected = DomainEvent<
  'LinkItemReconnected',
  { linkItemUuid: string; linkItemId: string; institution: LinkInstitution; addedAccounts: LinkedAccountData[]; billedProducts: string[] }
>;
/**
 * The user disconnected one of the item's accounts (DELETE /accounts/{id}): it and its transactions
 * leave every list, its history stays in the streams, and later syncs and reconnects do not bring it
 * back. Removing the item's last account disconnects the item: `LinkItemDisconnected` follows.
 */
export type LinkItemAccountDisconnected = DomainEvent<'LinkItemAccountDisconnected', { linkItemUuid: string; linkItemId: string; accountId: string }>;
/** The item and its accounts leave every list; `accountIds` lets read models drop them without the item's history. */
export type LinkItemDisconnected = DomainEvent<'LinkItemDisconnected', { linkItemUuid: string; linkItemId: string; accountIds: string[] }>;

/**
 * One page of the provider's transaction changes, imported: appended after the page's
 * transaction events, so `cursor` is where a sync — or one resumed after a crash — goes on from.
 * Not in LINK_ITEM_EVENT_TYPES: no read model needs a page.
 */
/**
 * `hasMore`: the provider has pages after this one; `syncTotals`, on a sync's last page, what the
 * whole sync imported (both absent on events recorded before they were kept).
 */
export type LinkItemSyncPageImported = DomainEvent<
  'LinkItemSyncPageImported',
  { linkItemUuid: string; cursor: string; added: number; modified: number; removed: number; hasMore?: boolean; syncTotals?: SyncCounts }
>;

export interface SyncCounts {
  readonly added: number;
  readonly modified: number;
  readonly removed: number;
}

/** Balances of one linked account, decimal strings signed as the port says (liabilities negative). */
export interface LinkedAccountBalances {
  readonly current: string | null;
  readonly available: string | null;
  readonly limit: string | null;
}

export interface RefreshedAccountBalances extends LinkedAccountBalances {
  readonly accountId: string;
  readonly linkAccountId: string;
}

/**
 * The provider's balances of the item's accounts moved: only the accounts whose balances changed.
 * Not in LINK_ITEM_EVENT_TYPES: only the accounts read model keeps balances.
 */
export type LinkItemBalancesRefreshed = DomainEvent<'LinkItemBalancesRefreshed', { linkItemUuid: string; balances: RefreshedAccountBalances[] }>;

export type LinkItemEvent =
  | LinkItemSyncPageImported
  | LinkItemBalancesRefreshed
  | LinkItemLinked
  | LinkItemLoginRequired
  | LinkItemErrored
  | LinkItemLoginRepaired
  | LinkItemPendingDisconnect
  | LinkItemNewAccountsAvailable
  | LinkItemReconnected
  | LinkItemAccountDisconnected
  | LinkItemDisconnected;

export const LINK_ITEM_EVENT_TYPES: readonly LinkItemEvent['type'][] = [
  'LinkItemLinked',
  'LinkItemLoginRequired',
  'LinkItemErrored',
  'LinkItemLoginRepaired',
  'LinkItemPendingDisconnect',
  'LinkItemNewAccountsAvailable',
  'LinkItemReconnected',
  'LinkItemDisconnected',
];

export interface LinkItemState {
  readonly status: 'absent' | 'linked' | 'disconnected';
  readonly linkItemId: string | null;
  readonly accountIds: readonly string[];
  /** Of `accountIds`, the ones the user disconnected: no longer synced, never added again. */
  readonly disconnectedAccountIds: readonly string[];
  readonly needsReauth: boolean;
  readonly error: LinkItemError | null;
  readonly newAccountsAvailable: boolean;
  readonly pendingDisconnectAt: string | null;
  /** The provider cursor after the last imported page; null before the first. */
  readonly cursor: string | null;
  /**
   * The cursor the last complete sync ended on (its last page had no more after it); null before
   * one. A sync's paging starts there, and starts there again when the provider's data moved
   * while it paged (PAGINATION_RESTART_REQUIRED), even after a crash left `cursor` mid-way.
   */
  readonly syncStartCursor: string | null;
  /** The last balances recorded per account id (at linking, then each refresh). */
  readonly balances: Readonly<Record<string, LinkedAccountBalances>>;
}

export const initialLinkItemState = (): LinkItemState => ({
  status: 'absent',
  linkItemId: null,
  accountIds: [],
  disconnectedAccountIds: [],
  needsReauth: false,
  error: null,
  newAccountsAvailable: false,
  pendingDisconnectAt: null,
  cursor: null,
  syncStartCursor: null,
  balances: {},
});

export function evolveLinkItem(state: LinkItemState, event: LinkItemEvent): LinkItemState {
  switch (event.type) {
    case 'LinkItemLinked':
      return {
        ...initialLinkItemState(),
        status: 'linked',
        linkItemId: event.data.linkItemId,
        accountIds: event.data.accounts.map((account) => account.accountId),
        balances: Object.fromEntries(event.data.accounts.map((account) => [account.accountId, account.balances])),
      };
    case 'LinkItemLoginRequired':
    case 'LinkItemErrored':
      return { ...state, needsReauth: true, error: event.data.error };
    case 'LinkItemLoginRepaired':
      return { ...state, needsReauth: false, error: null };
    case 'LinkItemPendingDisconnect':
      return { ...state, pendingDisconnectAt: event.data.disconnectAt };
    case 'LinkItemNewAccountsAvailable':
      return { ...state, newAccountsAvailable: true };
    case 'LinkItemReconnected':
      return {
        ...state,
        accountIds: [...state.accountIds, ...event.data.addedAccounts.map((account) => account.accountId)],
        balances: { ...state.balances, ...Object.fromEntries(event.data.addedAccounts.map((account) => [account.accountId, account.balances])) },
        needsReauth: false,
        error: null,
        newAccountsAvailable: false,
        pendingDisconnectAt: null,
      };
    case 'LinkItemAccountDisconnected':
      return { ...state, disconnectedAccountIds: [...state.disconnectedAccountIds, event.data.accountId] };
    case 'LinkItemDisconnected':
      return { ...state, status: 'disconnected' };
    case 'LinkItemSyncPageImported':
      // Pages recorded before `hasMore` was kept each ended their sync as far as is known.
      return { ...state, cursor: event.data.cursor, syncStartCursor: event.data.hasMore === true ? state.syncStartCursor : event.data.cursor };
    case 'LinkItemBalancesRefreshed': {
      const balances = { ...state.balances };
      for (const { accountId, current, available, limit } of event.data.balances) balances[accountId] = { current, available, limit };
      return { ...state, balances };
    }
    default: {
      unhandled(event);
      return state;
    }
  }
}

/** The item's accounts the user has not disconnected. */
export function liveAccountIdsOf(state: LinkItemState): string[] {
  return state.accountIds.filter((accountId) => !state.disconnectedAccountIds.includes(accountId));
}

export const LINK_ITEM_STREAM_PREFIX = 'link-item-';

export function linkItemStreamId(linkItemUuid: string): string {
  return `${LINK_ITEM_STREAM_PREFIX}${linkItemUuid}`;
}

const LINK_ITEM_NAMESPACE = '5b0f3a4e-6c1d-4f4b-9a57-0c6a1e2d8b01';
const LINKED_ACCOUNT_NAMESPACE = '9e2c7d10-3b5a-4c8e-8f61-2d4b6a8c0e13';

/**
 * The service's id of a user's item: name-based on (user, provider item id), so a path's
 * `linkItemId` names the stream without a lookup, and another user's item is a stream this user
 * does not have.
 */
export function linkItemUuidOf(userId: string, linkItemId: string): string {
  return nameBasedId(LINK_ITEM_NAMESPACE, `${userId}\n${linkItemId}`);
}

/** A linked account's stable id: the same user, item and provider account always give the same one. */
export function linkedAccountIdOf(userId: string, linkItemId: string, linkAccountId: string): string {
  return nameBasedId(LINKED_ACCOUNT_NAMESPACE, `${userId}\n${linkItemId}\n${linkAccountId}`);
}
