import type { RecordedEvent } from '../../core/events.js';
import { BROKERAGE_AUTHORIZATION_STREAM_PREFIX, type BrokerageAuthorizationAccountDisconnected, type BrokerageAuthorizationDisconnected } from '../brokerage/brokerage.events.js';
import { LINK_ITEM_STREAM_PREFIX, type LinkItemAccountDisconnected, type LinkItemDisconnected } from '../link/link-items/link-item.js';
import { ACCOUNT_STREAM_PREFIX, type AccountDeleted } from './account.js';

/**
 * The events by which accounts leave every list: a manual account deleted, a linked account
 * disconnected on its own, or with its whole connection. A read model that keeps rows per account
 * forgets them on these (the history stays in the streams).
 */
export const ACCOUNT_DEPARTURE_EVENT_TYPES = [
  'AccountDeleted',
  'LinkItemAccountDisconnected',
  'LinkItemDisconnected',
  'BrokerageAuthorizationAccountDisconnected',
  'BrokerageAuthorizationDisconnected',
] as const;

/**
 * The departures of accounts that can hold transactions and balance snapshots (manual and
 * bank-linked ones): a brokerage account has neither, so the read models of those need only these.
 */
export const TRANSACTION_ACCOUNT_DEPARTURE_EVENT_TYPES = ['AccountDeleted', 'LinkItemAccountDisconnected', 'LinkItemDisconnected'] as const;

/** The accounts `recorded` takes out of the lists, or null when it is not a departure. */
export function departingAccountIds(recorded: RecordedEvent): readonly string[] | null {
  const { type, streamId } = recorded;
  if (type === 'AccountDeleted' && streamId.startsWith(ACCOUNT_STREAM_PREFIX)) return [(recorded.data as AccountDeleted['data']).accountId];
  if (streamId.startsWith(LINK_ITEM_STREAM_PREFIX)) {
    if (type === 'LinkItemAccountDisconnected') return [(recorded.data as LinkItemAccountDisconnected['data']).accountId];
    if (type === 'LinkItemDisconnected') return (recorded.data as LinkItemDisconnected['data']).accountIds;
  }
  if (streamId.startsWith(BROKERAGE_AUTHORIZATION_STREAM_PREFIX)) {
    if (type === 'BrokerageAuthorizationAccountDisconnected') return [(recorded.data as BrokerageAuthorizationAccountDisconnected['data']).accountId];
    if (type === 'BrokerageAuthorizationDisconnected') return (recorded.data as BrokerageAuthorizationDisconnected['data']).accountIds;
  }
  return null;
}
