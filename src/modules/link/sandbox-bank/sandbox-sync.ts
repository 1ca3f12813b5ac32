import { BankLinkError, type ProviderTransaction, type SyncPage } from '../bank-link.port.js';
import type { SandboxLedger } from './sandbox-history.generator.js';
import { base62, hashSeed } from '../../../core/seeded-random.js';

/**
 * The item's change log, which `syncTransactions` pages through. It opens with the item as it
 * stood `catchUpDays` before `asOf` (all `added`), then replays the last days in order: new
 * pending transactions, pending → posted (remove the pending id, add the posted one), late
 * modifications and removals. Folding the whole log gives exactly `history.transactions`.
 */
export type SyncChange =
  | { readonly kind: 'added'; readonly transaction: ProviderTransaction }
  | { readonly kind: 'modified'; readonly transaction: ProviderTransaction }
  | { readonly kind: 'removed'; readonly transactionId: string };

interface DatedChange {
  readonly day: number;
  /** Orders the steps of one day: pending seen, pending dropped, posted, modified, removed. */
  readonly phase: number;
  readonly serial: number;
  readonly change: SyncChange;
}

export const DEFAULT_CATCH_UP_DAYS = 14;

export function buildSyncLog(ledger: SandboxLedger, catchUpDays = DEFAULT_CATCH_UP_DAYS): SyncChange[] {
  const { draft: plan, render } = ledger;
  const events: DatedChange[] = [];
  for (const draft of plan.drafts) {
    const edit = plan.edits.get(draft.serial);
    const at = (day: number, phase: number, change: SyncChange): void => {
      events.push({ day, phase, serial: draft.serial, change });
    };
    if (draft.postLag > 0) {
      const pending = render(draft, 'pending');
      at(draft.day, 0, { kind: 'added', transaction: pending });
      if (draft.pending) continue;
      at(draft.postedDay, 1, { kind: 'removed', transactionId: pending.transactionId });
    }
    const posted = render(draft, 'posted');
    at(draft.postedDay, 2, { kind: 'added', transaction: edit?.kind === 'modified' ? { ...posted, ...edit.original } : posted });
    if (edit?.kind === 'modified') at(edit.day, 3, { kind: 'modified', transaction: posted });
    if (edit?.kind === 'removed') at(edit.day, 4, { kind: 'removed', transactionId: posted.transactionId });
  }
  events.sort((a, b) => a.day - b.day || a.phase - b.phase || a.serial - b.serial);

  const cutoff = plan.asOf - catchUpDays;
  const snapshot = new Map<string, ProviderTransaction>();
  let replayFrom = events.length;
  for (let i = 0; i < events.length; i += 1) {
    const event = events[i] as DatedChange;
    if (event.day > cutoff) {
      replayFrom = i;
      break;
    }
    const change = event.change;
    if (change.kind === 'removed') snapshot.delete(change.transactionId);
    else snapshot.set(change.transaction.transactionId, change.transaction);
  }
  const log: SyncChange[] = [...snapshot.values()].map((transaction) => ({ kind: 'added', transaction }));
  for (let i = replayFrom; i < events.length; i += 1) log.push((events[i] as DatedChange).change);
  return log;
}

export const changedTransactionId = (change: SyncChange): string =>
  change.kind === 'removed' ? change.transactionId : change.transaction.transactionId;

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
 * Up to `count` changes from `position`. A page ends early rather than name one transaction twice,
 * so a client may apply `added`, `modified` and `removed` in that order without losing a step.
 */
export function readSyncPage(log: readonly SyncChange[], itemId: string, position: number, count: number): SyncPage {
  const limit = Math.min(Math.max(Math.trunc(count), 1), MAX_SYNC_COUNT);
  const added: ProviderTransaction[] = [];
  const modified: ProviderTransaction[] = [];
  const removed: { transactionId: string }[] = [];
  const seen = new Set<string>();
  let end = position;
  while (end < log.length && end - position < limit) {
    const change = log[end] as SyncChange;
    const id = changedTransactionId(change);
    if (seen.has(id)) break;
    seen.add(id);
    if (change.kind === 'added') added.push(change.transaction);
    else if (change.kind === 'modified') modified.push(change.transaction);
    else removed.push({ transactionId: change.transactionId });
    end += 1;
  }
  return { added, modified, removed, hasMore: end < log.length, nextCursor: encodeCursor(itemId, end) };
}
