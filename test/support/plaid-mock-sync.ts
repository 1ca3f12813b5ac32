/** One change Plaid records for an item, as test/fixtures/plaid/transactions-sync-log.json holds them. */
export interface SyncLogUpdate {
  readonly kind: 'added' | 'modified' | 'removed';
  /** A whole transaction as /transactions/sync returns it; for `removed`, `{account_id, transaction_id}`. */
  readonly transaction: { readonly transaction_id: string; readonly account_id: string } & Record<string, unknown>;
}

interface Cursor {
  readonly item: string;
  /** Updates read so far. */
  readonly position: number;
  /** While paging (has_more was true): the log's length when the paging began. */
  readonly pagingEnd: number | null;
}

const encode = (cursor: Cursor): string => Buffer.from(JSON.stringify(cursor)).toString('base64url');

function decode(text: string): Cursor | null {
  try {
    const cursor = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as Cursor;
    return typeof cursor.item === 'string' && Number.isInteger(cursor.position) ? cursor : null;
  } catch {
    return null;
  }
}

/**
 * A /transactions/sync page cut from the item's log as Plaid cuts them: from the cursor's position,
 * at most `count` updates of the log as it stood when the paging began; each transaction named
 * once, at its latest (added and then modified in one page is added; added and removed in one page
 * is not named). A cursor taken mid-paging is refused once the log has grown since the paging
 * began: TRANSACTIONS_SYNC_MUTATION_DURING_PAGINATION, to be answered by paging again from its start.
 */
export function cutSyncPage(itemId: string, log: readonly SyncLogUpdate[], cursorText: string, count: number) {
  const cursor: Cursor | null = cursorText === '' ? { item: itemId, position: 0, pagingEnd: null } : decode(cursorText);
  if (cursor === null || cursor.item !== itemId || cursor.position > log.length) return 'invalid cursor' as const;
  if (cursor.pagingEnd !== null && cursor.pagingEnd !== log.length) return 'mutated' as const;
  const end = cursor.pagingEnd ?? log.length;
  const next = Math.min(cursor.position + count, end);
  const latest = new Map<string, { kind: SyncLogUpdate['kind']; transaction: SyncLogUpdate['transaction']; addedHere: boolean }>();
  for (const update of log.slice(cursor.position, next)) {
    const id = update.transaction.transaction_id;
    const addedHere = update.kind === 'added' || (latest.get(id)?.addedHere ?? false);
    latest.set(id, { kind: update.kind === 'modified' && addedHere ? 'added' : update.kind, transaction: update.transaction, addedHere });
  }
  const named = [...latest.values()].filter((entry) => !(entry.kind === 'removed' && entry.addedHere));
  const hasMore = next < end;
  return {
    added: named.filter((entry) => entry.kind === 'added').map((entry) => entry.transaction),
    modified: named.filter((entry) => entry.kind === 'modified').map((entry) => entry.transaction),
    removed: named.filter((entry) => entry.kind === 'removed').map((entry) => ({ account_id: entry.transaction.account_id, transaction_id: entry.transaction.transaction_id })),
    next_cursor: encode({ item: itemId, position: next, pagingEnd: hasMore ? end : null }),
    has_more: hasMore,
  };
}
