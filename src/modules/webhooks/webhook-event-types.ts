import type { DomainEvent } from '../../core/events.js';
import { LINK_ITEM_EVENT_TYPES, type LinkItemSyncPageImported } from '../link/link-items/link-item.js';

export const WEBHOOK_EVENT_TYPES = [
  'transaction.created',
  'transaction.updated',
  'transaction.deleted',
  'account.created',
  'account.updated',
  'link_item.updated',
  'sync.completed',
  'recurring_stream.updated',
  'webhook.test',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** Where a webhook's `data` comes from: the resource the event changed, in the read model the API answers it from. */
export type WebhookResource =
  | { readonly kind: 'transaction'; readonly id: string }
  | { readonly kind: 'account'; readonly id: string }
  | { readonly kind: 'link_item'; readonly id: string }
  | { readonly kind: 'recurring_stream'; readonly id: string }
  | { readonly kind: 'sync'; readonly linkItemUuid: string; readonly cursor: string; readonly added: number; readonly modified: number; readonly removed: number };

export interface WebhookEvent {
  readonly type: WebhookEventType;
  readonly resource: WebhookResource;
}

const TRANSACTION_TYPES: Readonly<Record<string, WebhookEventType>> = {
  TransactionCreated: 'transaction.created',
  TransactionImported: 'transaction.created',
  TransactionEdited: 'transaction.updated',
  TagApplied: 'transaction.updated',
  TagRemoved: 'transaction.updated',
  TransferPaired: 'transaction.updated',
  TransferUnpaired: 'transaction.updated',
  TransactionSplit: 'transaction.updated',
  TransactionSplitsCleared: 'transaction.updated',
  TransactionDeleted: 'transaction.deleted',
  // The provider dropped it, or its posted transaction took its place: either way it left the list.
  TransactionRemoved: 'transaction.deleted',
  TransactionReplaced: 'transaction.deleted',
};
const ACCOUNT_TYPES: Readonly<Record<string, WebhookEventType>> = {
  ManualAccountCreated: 'account.created',
  ManualBalanceUpdated: 'account.updated',
  CreditLimitOverridden: 'account.updated',
};
/** A change of the item the API shows on it: the projection's link-item events, and one account leaving it. */
const LINK_ITEM_TYPES: readonly string[] = [...LINK_ITEM_EVENT_TYPES, 'LinkItemAccountDisconnected'];

/** Every domain event type that becomes a webhook: the reaction's event types. */
export const WEBHOOK_SOURCE_EVENT_TYPES: readonly string[] = [
  ...Object.keys(TRANSACTION_TYPES),
  ...Object.keys(ACCOUNT_TYPES),
  ...LINK_ITEM_TYPES,
  'LinkItemSyncPageImported',
  'RecurringStreamUpdated',
];

/** The webhook a domain event is to a user's endpoints, or null when it is none. */
export function webhookEventOf(event: DomainEvent): WebhookEvent | null {
  const data = event.data as Record<string, unknown>;
  const transactionType = TRANSACTION_TYPES[event.type];
  if (transactionType) return { type: transactionType, resource: { kind: 'transaction', id: data.transactionId as string } };
  const accountType = ACCOUNT_TYPES[event.type];
  if (accountType) return { type: accountType, resource: { kind: 'account', id: data.accountId as string } };
  if (LINK_ITEM_TYPES.includes(event.type)) return { type: 'link_item.updated', resource: { kind: 'link_item', id: data.linkItemUuid as string } };
  if (event.type === 'LinkItemSyncPageImported') {
    const page = data as LinkItemSyncPageImported['data'];
    // A sync is complete with its last page; a page with more after it is not news yet.
    if (page.hasMore === true) return null;
    const counts = page.syncTotals ?? page;
    return { type: 'sync.completed', resource: { kind: 'sync', linkItemUuid: page.linkItemUuid, cursor: page.cursor, added: counts.added, modified: counts.modified, removed: counts.removed } };
  }
  if (event.type === 'RecurringStreamUpdated') return { type: 'recurring_stream.updated', resource: { kind: 'recurring_stream', id: data.recurringStreamId as string } };
  return null;
}

/** Whether an endpoint subscribed to `type`: an empty list subscribes to every type. */
export function subscribesTo(eventTypes: readonly string[], type: WebhookEventType): boolean {
  return eventTypes.length === 0 || eventTypes.includes(type);
}
