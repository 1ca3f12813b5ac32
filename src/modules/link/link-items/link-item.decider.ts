import type { Decider } from '../../../core/decider.js';
import { DomainRuleError, NotFoundError } from '../../../core/errors.js';
import { unhandled } from '../../../core/exhaustive.js';
import { isDecimalString, normaliseDecimal } from '../../../core/money.js';
import {
  evolveLinkItem,
  initialLinkItemState,
  type LinkedAccountBalances,
  type LinkItemError,
  type LinkItemEvent,
  type LinkItemLinked,
  type LinkItemState,
  liveAccountIdsOf,
  type RefreshedAccountBalances,
  type SyncCounts,
} from './link-item.js';

/**
 * Commands on one link item. The state changes a provider reports (login required, errored,
 * repaired, pending disconnect, new accounts) are recorded only when they change something, so a
 * webhook delivered twice appends nothing the second time.
 */
export type LinkItemCommand =
  /** The public-token exchange: links a new item, or reconnects one the user has (the provider's update mode). */
  | { type: 'LinkItem'; data: LinkItemLinked['data'] }
  | { type: 'RecordLoginRequired'; linkItemUuid: string; error: LinkItemError }
  | { type: 'RecordItemError'; linkItemUuid: string; error: LinkItemError }
  | { type: 'RecordLoginRepaired'; linkItemUuid: string }
  | { type: 'RecordPendingDisconnect'; linkItemUuid: string; disconnectAt: string }
  | { type: 'RecordNewAccountsAvailable'; linkItemUuid: string }
  | { type: 'DisconnectLinkItem'; linkItemUuid: string }
  /** One of the item's accounts; the last one takes the item with it. */
  | { type: 'DisconnectLinkedAccount'; linkItemUuid: string; accountId: string }
  | { type: 'RecordSyncPage'; linkItemUuid: string; cursor: string; added: number; modified: number; removed: number; hasMore?: boolean; syncTotals?: SyncCounts }
  /** The provider's balances now; accounts the item does not have and malformed amounts are left out. */
  | { type: 'RecordProviderBalances'; linkItemUuid: string; balances: readonly RefreshedAccountBalances[] };

export function decideLinkItem(command: LinkItemCommand, state: LinkItemState): LinkItemEvent[] {
  if (command.type === 'LinkItem') {
    if (state.status === 'absent') return [{ type: 'LinkItemLinked', data: command.data }];
    if (state.status === 'disconnected') throw new DomainRuleError('LINK_ITEM_EXISTS', 'This item was disconnected; link it as a new item at the provider.', 409);
    const { linkItemUuid, linkItemId, institution, accounts, billedProducts } = command.data;
    const addedAccounts = accounts.filter((account) => !state.accountIds.includes(account.accountId));
    return [{ type: 'LinkItemReconnected', data: { linkItemUuid, linkItemId, institution, addedAccounts, billedProducts } }];
  }
  if (state.status === 'absent') throw new NotFoundError('Link item');
  // A disconnected item no longer follows its provider: late webhooks change nothing, a second disconnect is a no-op.
  if (state.status === 'disconnected') return [];
  const linkItemUuid = command.linkItemUuid;
  switch (command.type) {
    case 'RecordLoginRequired':
      return state.needsReauth && sameError(state.error, command.error) ? [] : [{ type: 'LinkItemLoginRequired', data: { linkItemUuid, error: command.error } }];
    case 'RecordItemError':
      return state.needsReauth && sameError(state.error, command.error) ? [] : [{ type: 'LinkItemErrored', data: { linkItemUuid, error: command.error } }];
    case 'RecordLoginRepaired':
      return state.needsReauth ? [{ type: 'LinkItemLoginRepaired', data: { linkItemUuid } }] : [];
    case 'RecordPendingDisconnect':
      return state.pendingDisconnectAt === command.disconnectAt ? [] : [{ type: 'LinkItemPendingDisconnect', data: { linkItemUuid, disconnectAt: command.disconnectAt } }];
    case 'RecordNewAccountsAvailable':
      return state.newAccountsAvailable ? [] : [{ type: 'LinkItemNewAccountsAvailable', data: { linkItemUuid } }];
    case 'DisconnectLinkItem':
      return [{ type: 'LinkItemDisconnected', data: { linkItemUuid, linkItemId: state.linkItemId ?? '', accountIds: [...state.accountIds] } }];
    case 'DisconnectLinkedAccount': {
      const live = liveAccountIdsOf(state);
      // Not the item's, or already disconnected: nothing to do (DELETE is idempotent).
      if (!live.includes(command.accountId)) return [];
      const linkItemId = state.linkItemId ?? '';
      const disconnected: LinkItemEvent = { type: 'LinkItemAccountDisconnected', data: { linkItemUuid, linkItemId, accountId: command.accountId } };
      if (live.length > 1) return [disconnected];
      return [disconnected, { type: 'LinkItemDisconnected', data: { linkItemUuid, linkItemId, accountIds: [...state.accountIds] } }];
    }
    case 'RecordSyncPage': {
      const { cursor, added, modified, removed, hasMore, syncTotals } = command;
      // An empty page that leaves the cursor where it was records nothing, unless it ends a sync
      // that changed something: the sync's end (and its counts) is recorded then.
      const syncChanged = syncTotals !== undefined && syncTotals.added + syncTotals.modified + syncTotals.removed > 0;
      if (cursor === state.cursor && added + modified + removed === 0 && !syncChanged) return [];
      return [{ type: 'LinkItemSyncPageImported', data: { linkItemUuid, cursor, added, modified, removed, ...(hasMore === undefined ? {} : { hasMore }), ...(syncTotals === undefined ? {} : { syncTotals }) } }];
    }
    case 'RecordProviderBalances': {
      const live = liveAccountIdsOf(state);
      const changed = command.balances.filter((reported) => live.includes(reported.accountId) && wellFormed(reported) && !sameBalances(state.balances[reported.accountId], reported));
      if (changed.length === 0) return [];
      const balances = changed.map(({ accountId, linkAccountId, current, available, limit }) => ({ accountId, linkAccountId, current, available, limit }));
      return [{ type: 'LinkItemBalancesRefreshed', data: { linkItemUuid, balances } }];
    }
    default: {
      unhandled(command);
      throw new Error(`Unknown link item command ${(command as { type: string }).type}`);
    }
  }
}

/** A provider amount the read model can store (numeric(19,4)); anything else is not recorded. */
function wellFormed(balances: LinkedAccountBalances): boolean {
  return [balances.current, balances.available, balances.limit].every((amount) => amount === null || isDecimalString(amount));
}

/** "12.50" and "12.5" are one amount: a provider that formats differently has not moved a balance. */
function sameBalances(known: LinkedAccountBalances | undefined, reported: LinkedAccountBalances): boolean {
  if (known === undefined) return false;
  return sameAmount(known.current, reported.current) && sameAmount(known.available, reported.available) && sameAmount(known.limit, reported.limit);
}

function sameAmount(a: string | null, b: string | null): boolean {
  return a === null || b === null ? a === b : normaliseDecimal(a) === normaliseDecimal(b);
}

function sameError(a: LinkItemError | null, b: LinkItemError): boolean {
  return a !== null && a.errorCode === b.errorCode && a.errorMessage === b.errorMessage;
}

export const linkItemDecider: Decider<LinkItemCommand, LinkItemEvent, LinkItemState> = {
  decide: decideLinkItem,
  evolve: evolveLinkItem,
  initialState: initialLinkItemState,
};
