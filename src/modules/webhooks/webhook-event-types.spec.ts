import { subscribesTo, WEBHOOK_SOURCE_EVENT_TYPES, webhookEventOf } from './webhook-event-types.js';

const event = (type: string, data: Record<string, unknown>) => ({ type, data });

describe('which webhook a domain event is', () => {
  it.each([
    ['TransactionCreated', 'transaction.created'],
    ['TransactionImported', 'transaction.created'],
    ['TransactionEdited', 'transaction.updated'],
    ['TagApplied', 'transaction.updated'],
    ['TagRemoved', 'transaction.updated'],
    ['TransactionDeleted', 'transaction.deleted'],
    ['TransactionRemoved', 'transaction.deleted'],
    ['TransactionReplaced', 'transaction.deleted'],
  ])('%s is %s, about its transaction', (type, webhook) => {
    expect(webhookEventOf(event(type, { transactionId: 't1' }))).toEqual({ type: webhook, resource: { kind: 'transaction', id: 't1' } });
  });

  it.each([
    ['ManualAccountCreated', 'account.created'],
    ['ManualBalanceUpdated', 'account.updated'],
    ['CreditLimitOverridden', 'account.updated'],
  ])('%s is %s, about its account', (type, webhook) => {
    expect(webhookEventOf(event(type, { accountId: 'a1' }))).toEqual({ type: webhook, resource: { kind: 'account', id: 'a1' } });
  });

  it('a link item change is link_item.updated; a sync’s last page is sync.completed, with the whole sync’s counts', () => {
    expect(webhookEventOf(event('LinkItemSyncPageImported', { linkItemUuid: 'i1', cursor: 'c', added: 500, modified: 0, removed: 0, hasMore: true }))).toBeNull();
    expect(webhookEventOf(event('LinkItemSyncPageImported', { linkItemUuid: 'i1', cursor: 'c2', added: 20, modified: 1, removed: 2, hasMore: false, syncTotals: { added: 520, modified: 1, removed: 2 } }))).toEqual({
      type: 'sync.completed',
      resource: { kind: 'sync', linkItemUuid: 'i1', cursor: 'c2', added: 520, modified: 1, removed: 2 },
    });
    expect(webhookEventOf(event('LinkItemLoginRequired', { linkItemUuid: 'i1' }))).toEqual({ type: 'link_item.updated', resource: { kind: 'link_item', id: 'i1' } });
    expect(webhookEventOf(event('LinkItemSyncPageImported', { linkItemUuid: 'i1', cursor: 'c', added: 3, modified: 1, removed: 0 }))).toEqual({
      type: 'sync.completed',
      resource: { kind: 'sync', linkItemUuid: 'i1', cursor: 'c', added: 3, modified: 1, removed: 0 },
    });
  });

  it('a recurring stream found or changed is recurring_stream.updated', () => {
    expect(webhookEventOf(event('RecurringStreamUpdated', { recurringStreamId: 's1' }))).toEqual({ type: 'recurring_stream.updated', resource: { kind: 'recurring_stream', id: 's1' } });
  });

  it('an event no client is told about is none, and every source type maps to one', () => {
    expect(webhookEventOf(event('TagCreated', { tagId: 'x' }))).toBeNull();
    expect(webhookEventOf(event('BalanceSnapshotTaken', { accountId: 'x' }))).toBeNull();
    for (const type of WEBHOOK_SOURCE_EVENT_TYPES) expect(webhookEventOf(event(type, {}))).not.toBeNull();
  });

  it('an endpoint with no event types subscribes to every one', () => {
    expect(subscribesTo([], 'account.created')).toBe(true);
    expect(subscribesTo(['transaction.created'], 'transaction.created')).toBe(true);
    expect(subscribesTo(['transaction.created'], 'transaction.updated')).toBe(false);
  });
});
