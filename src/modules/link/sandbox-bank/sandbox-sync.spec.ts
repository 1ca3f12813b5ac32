import fc from 'fast-check';
import type { ProviderTransaction, SyncPage } from '../bank-link.port.js';
import { generateSandboxLedger } from './sandbox-history.generator.js';
import { buildSyncLog, changedTransactionId, type SyncChange, type SyncLog } from './sandbox-sync-log.js';
import { decodeCursor, encodeCursor, readSyncPage } from './sandbox-sync.js';

const changesOf = (log: SyncLog): SyncChange[] => Array.from({ length: log.length }, (_, index) => log.changeAt(index));
const ledger = generateSandboxLedger({ seed: 11, asOf: '2026-11-20' });
const log = buildSyncLog(ledger);
const changes = changesOf(log);
const itemId = 'item-under-test';
const expected = new Map(ledger.history.transactions.map((transaction) => [transaction.transactionId, JSON.stringify(transaction)]));

/** What a client holds after applying pages in order: added, then modified, then removed. */
function applyPage(state: Map<string, string>, page: SyncPage): void {
  for (const transaction of page.added) state.set(transaction.transactionId, JSON.stringify(transaction));
  for (const transaction of page.modified) {
    expect(state.has(transaction.transactionId)).toBe(true);
    state.set(transaction.transactionId, JSON.stringify(transaction));
  }
  for (const { transactionId } of page.removed) state.delete(transactionId);
}

const pageSize = (page: SyncPage): number => page.added.length + page.modified.length + page.removed.length;
const positionOf = (cursor: string): number => decodeCursor(itemId, cursor, log.length);

describe('the sandbox sync log', () => {
  it('folds into exactly the current history, through pending removals, modifications and removals', () => {
    const state = new Map<string, string>();
    let position = 0;
    while (position < log.length) {
      const page = readSyncPage(log, itemId, position, 500);
      applyPage(state, page);
      position = positionOf(page.nextCursor);
    }
    expect(state).toEqual(expected);
    const kinds = (kind: SyncChange['kind']): SyncChange[] => changes.filter((change) => change.kind === kind);
    expect(kinds('modified').length).toBeGreaterThanOrEqual(2);
    const current = new Set(expected.keys());
    const removedPosted = kinds('removed').filter((change) => !current.has(changedTransactionId(change)) && changes.some((other) => other.kind === 'added' && !other.transaction.pending && changedTransactionId(other) === changedTransactionId(change)));
    expect(removedPosted.length).toBeGreaterThanOrEqual(1);
    expect(kinds('removed').length).toBeGreaterThan(removedPosted.length);
  });

  it('pages with a small count without skipping or repeating a change', () => {
    const delivered: string[] = [];
    let cursor = encodeCursor(itemId, 0);
    for (;;) {
      const page = readSyncPage(log, itemId, positionOf(cursor), 7);
      const ids = [...page.added, ...page.modified].map((t: ProviderTransaction) => t.transactionId).concat(page.removed.map((r) => r.transactionId));
      expect(new Set(ids).size).toBe(ids.length);
      expect(pageSize(page)).toBeLessThanOrEqual(7);
      expect(pageSize(page)).toBeGreaterThan(0);
      delivered.push(...changes.slice(positionOf(cursor), positionOf(page.nextCursor)).map((change) => `${change.kind}:${changedTransactionId(change)}`));
      cursor = page.nextCursor;
      if (!page.hasMore) break;
    }
    expect(delivered).toEqual(changes.map((change) => `${change.kind}:${changedTransactionId(change)}`));
    const last = readSyncPage(log, itemId, positionOf(cursor), 7);
    expect(last).toEqual({ added: [], modified: [], removed: [], hasMore: false, nextCursor: cursor });
  });

  it('returns the same page for the same cursor', () => {
    const first = readSyncPage(log, itemId, 0, 25);
    const again = readSyncPage(log, itemId, positionOf(first.nextCursor), 25);
    expect(readSyncPage(log, itemId, positionOf(first.nextCursor), 25)).toEqual(again);
    expect(JSON.stringify(changesOf(buildSyncLog(generateSandboxLedger({ seed: 11, asOf: '2026-11-20' }))))).toBe(JSON.stringify(changes));
  });

  it('refuses a cursor from another item or a forged one', () => {
    expect(() => decodeCursor(itemId, encodeCursor('another-item', 3), log.length)).toThrow(/cursor/);
    expect(() => decodeCursor(itemId, 'bm90LWEtY3Vyc29y', log.length)).toThrow(/cursor/);
    expect(() => decodeCursor(itemId, encodeCursor(itemId, log.length + 1), log.length)).toThrow(/cursor/);
  });

  it('delivers every change exactly once for any page sizes and restart points', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ count: fc.integer({ min: 1, max: 120 }), crash: fc.boolean() }), { minLength: 1, maxLength: 40 }),
        (requests) => {
          const state = new Map<string, string>();
          const appliedAt: number[] = [];
          let committed = encodeCursor(itemId, 0);
          let request = 0;
          for (;;) {
            const { count, crash } = requests[request % requests.length]!;
            request += 1;
            const page = readSyncPage(log, itemId, positionOf(committed), count);
            // A client that crashed before committing its cursor asks again from the old one.
            if (crash && JSON.stringify(readSyncPage(log, itemId, positionOf(committed), count)) !== JSON.stringify(page)) throw new Error('page changed');
            applyPage(state, page);
            const [from, to] = [positionOf(committed), positionOf(page.nextCursor)];
            for (let p = from; p < to; p += 1) appliedAt.push(p);
            committed = page.nextCursor;
            if (!page.hasMore) break;
          }
          expect(appliedAt).toEqual(changes.map((_change, index) => index));
          expect(state).toEqual(expected);
        },
      ),
      { numRuns: 40 },
    );
  });
});
