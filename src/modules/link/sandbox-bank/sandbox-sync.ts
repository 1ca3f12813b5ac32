import { BankLinkError, type ProviderTransaction, type SyncPage } from '../bank-link.port.js';
import { base62, hashSeed } from '../../../core/seeded-random.js';
import { changedTransactionId, type SyncChange, type SyncLog } from './sandbox-sync-log.js';

/** Cursors are positions in an item's sync log (`sandbox-sync-log.ts`), signed with the item's id. */

const CURSOR = /^v1:([^:]+):(\d+):([0-9A-Za-z]{6})$/;

const cursorCheck = (itemId: string, position: number): string => base62(hashSeed('cursor', itemId, position), 6);

export function encodeCursor(itemId: string, position: number): string {
  return Buffer.from(`v1:${itemId}:${position}:${cursorCheck(itemId, position)}`, 'utf8').toString('base64url');
}

export function decodeCursor(itemId: string, cursor: string, logLength: number): number {
  const match = CURSOR.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  const position = match === null ? -1 : Number(match[2]);
  if (match === null || match[1] !== itemId || match[3] !== cursorCheck(itemId, position) || position > logLength) {
    throw new BankLinkError('INVALID_CURSOR', 'The cursor is not one this item issued');
  }
  return position;
}

export const DEFAULT_SYNC_COUNT = 100;
export const MAX_SYNC_COUNT = 500;

/**
 * Up to `count` changes from `position`, before `end` (the revealed length). A page ends early
 * rather than name one transaction twice, so a client may apply `added`, `modified` and `removed`
 * in that order without losing a step. A position past `end` (a cursor issued by an instance whose
 * clock is ahead) reads as nothing new yet, with the same cursor.
 */
export function readSyncPage(log: SyncLog, itemId: string, position: number, count: number, end = log.length): SyncPage {
  const limit = Math.min(Math.max(Math.trunc(count), 1), MAX_SYNC_COUNT);
  const added: ProviderTransaction[] = [];
  const modified: ProviderTransaction[] = [];
  const removed: { transactionId: string }[] = [];
  const seen = new Set<string>();
  let next = position;
  while (next < end && next - position < limit) {
    const change: SyncChange = log.changeAt(next);
    const id = changedTransactionId(change);
    if (seen.has(id)) break;
    seen.add(id);
    if (change.kind === 'added') added.push(change.transaction);
    else if (change.kind === 'modified') modified.push(change.transaction);
    else removed.push({ transactionId: change.transactionId });
    next += 1;
  }
  return { added, modified, removed, hasMore: next < end, nextCursor: encodeCursor(itemId, next) };
}
