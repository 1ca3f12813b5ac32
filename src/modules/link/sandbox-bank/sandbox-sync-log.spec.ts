import type { ProviderTransaction, SyncPage } from '../bank-link.port.js';
import { formatIsoDate, parseIsoDate } from '../../../core/calendar-day.js';
import { generateSandboxLedger } from './sandbox-history.generator.js';
import { historyOnDay } from './sandbox-history-on-day.js';
import { buildSyncLog, changedTransactionId, revealedLength, type SyncChange } from './sandbox-sync-log.js';
import { decodeCursor, encodeCursor, readSyncPage } from './sandbox-sync.js';

const asOf = '2026-11-20';
const linkDay = parseIsoDate(asOf);
const ledger = generateSandboxLedger({ seed: 11, asOf, horizonDays: 400 });
const log = buildSyncLog(ledger);
const changes: SyncChange[] = Array.from({ length: log.length }, (_, index) => log.changeAt(index));
const itemId = 'item-living-on';
const toCents = (amount: string): number => Math.round(Number(amount) * 100);

/** A client syncing on `day` from `cursor` until the revealed part is exhausted; returns the next cursor. */
function syncOn(state: Map<string, ProviderTransaction>, day: number, cursor: string | undefined, count = 500): { cursor: string; pages: SyncPage[] } {
  const pages: SyncPage[] = [];
  let position = cursor === undefined ? 0 : decodeCursor(itemId, cursor, log.length);
  const end = revealedLength(log, day);
  for (;;) {
    const page = readSyncPage(log, itemId, position, count, end);
    pages.push(page);
    for (const transaction of page.added) state.set(transaction.transactionId, transaction);
    for (const transaction of page.modified) {
      expect(state.has(transaction.transactionId)).toBe(true);
      state.set(transaction.transactionId, transaction);
    }
    for (const { transactionId } of page.removed) expect(state.delete(transactionId)).toBe(true);
    position = decodeCursor(itemId, page.nextCursor, log.length);
    if (!page.hasMore) return { cursor: page.nextCursor, pages };
  }
}

const byId = (transactions: readonly ProviderTransaction[]): Map<string, ProviderTransaction> => new Map(transactions.map((transaction) => [transaction.transactionId, transaction]));
const described = (change: SyncChange): string => `${change.kind}:${changedTransactionId(change)}`;
const describedPages = (pages: readonly SyncPage[]): string[] =>
  pages.flatMap((page) => [...page.added.map((t) => `added:${t.transactionId}`), ...page.modified.map((t) => `modified:${t.transactionId}`), ...page.removed.map((r) => `removed:${r.transactionId}`)]);

describe('the sync log of an item that lives on after its link day', () => {
  it('opens with the item as it stood catchUpDays before the link day, then is sorted by day up to the horizon', () => {
    const cutoff = linkDay - 14;
    const opening = changes.filter((change) => change.day === cutoff);
    expect(opening.length).toBeGreaterThan(2000);
    expect(opening.every((change) => change.kind === 'added')).toBe(true);
    expect(changes.slice(0, opening.length)).toEqual(opening);
    for (let i = 1; i < changes.length; i += 1) expect(changes[i]!.day).toBeGreaterThanOrEqual(changes[i - 1]!.day);
    expect(changes[changes.length - 1]!.day).toBeLessThanOrEqual(linkDay + 400);
    expect(revealedLength(log, linkDay)).toBeLessThan(log.length / 2);
    expect(revealedLength(log, linkDay + 400)).toBe(log.length);
    expect(revealedLength(log, cutoff - 1)).toBe(0);
  });

  it('on any day, folds into exactly the item on that day', () => {
    for (const day of [linkDay, linkDay + 1, linkDay + 45, linkDay + 399, linkDay + 400, linkDay + 900]) {
      const state = new Map<string, ProviderTransaction>();
      syncOn(state, day, undefined);
      expect([formatIsoDate(day), state]).toEqual([formatIsoDate(day), byId(historyOnDay(ledger, day).transactions)]);
    }
  });

  it('a sync from the cursor kept at day D returns, k days later, exactly the changes of days D+1..D+k', () => {
    const state = new Map<string, ProviderTransaction>();
    let { cursor } = syncOn(state, linkDay, undefined);
    for (const [from, to] of [[linkDay, linkDay + 1], [linkDay + 1, linkDay + 1], [linkDay + 1, linkDay + 9], [linkDay + 9, linkDay + 70]] as const) {
      const next = syncOn(state, to, cursor, 37);
      // A page groups its changes by kind, so compare them as a set: each exactly once.
      const expected = changes.filter((change) => change.day > from && change.day <= to).map(described);
      expect(describedPages(next.pages).sort()).toEqual(expected.sort());
      if (from === to) expect(next.pages).toEqual([{ added: [], modified: [], removed: [], hasMore: false, nextCursor: cursor }]);
      cursor = next.cursor;
      expect(state).toEqual(byId(historyOnDay(ledger, to).transactions));
    }
    const kinds = new Set(changes.filter((change) => change.day > linkDay && change.day <= linkDay + 70).map((change) => change.kind));
    expect(kinds).toEqual(new Set(['added', 'modified', 'removed']));
  });

  it('shows a purchase pending until its posted day, then posted in its place', () => {
    const day = linkDay + 30;
    const before = historyOnDay(ledger, day);
    const after = byId(historyOnDay(ledger, day + 3).transactions);
    const posting = [...after.values()].find((transaction) => transaction.pendingTransactionId !== null && before.transactions.some((t) => t.transactionId === transaction.pendingTransactionId));
    expect(posting).toBeDefined();
    const pending = byId(before.transactions).get(posting!.pendingTransactionId!)!;
    expect(pending).toMatchObject({ pending: true, date: posting!.authorizedDate });
    expect(posting!.date > formatIsoDate(day)).toBe(true);
    expect(after.has(pending.transactionId)).toBe(false);
    const postedOn = parseIsoDate(posting!.date);
    const thatDay = changes.filter((change) => change.day === postedOn).map(described);
    expect(thatDay.indexOf(`removed:${pending.transactionId}`)).toBeLessThan(thatDay.indexOf(`added:${posting!.transactionId}`));
    // Before its posted day nothing shows the posted one.
    expect(byId(historyOnDay(ledger, postedOn - 1).transactions).has(posting!.transactionId)).toBe(false);
  });

  it('shows a provider correction from its day, the original before it', () => {
    const modified = changes.find((change): change is Extract<SyncChange, { kind: 'modified' }> => change.kind === 'modified' && change.day > linkDay + 2)!;
    const id = modified.transaction.transactionId;
    const before = byId(historyOnDay(ledger, modified.day - 1).transactions).get(id);
    const after = byId(historyOnDay(ledger, modified.day).transactions).get(id);
    expect(before).toBeDefined();
    expect(before).not.toEqual(after);
    expect(after).toEqual(modified.transaction);
  });

  it('keeps the account balances true to the transactions shown on every day, and the loan owed', () => {
    for (const day of [linkDay, linkDay + 17, linkDay + 200, linkDay + 400]) {
      const history = historyOnDay(ledger, day);
      const limits = new Set<string | null>();
      for (const account of history.accounts) {
        const own = history.transactions.filter((transaction) => transaction.accountId === account.linkAccountId);
        const sum = (pending: boolean): number => own.filter((t) => t.pending === pending).reduce((total, t) => total + toCents(t.amount), 0);
        expect(toCents(account.balances.current!)).toBe(toCents(account.openingBalance) + sum(false));
        if (account.type === 'depository') expect(toCents(account.balances.available!)).toBe(toCents(account.balances.current!) + sum(true));
        if (account.type === 'credit') {
          expect(toCents(account.balances.available!)).toBe(toCents(account.balances.limit!) + toCents(account.balances.current!) + sum(true));
          limits.add(account.balances.limit);
        }
        if (account.type === 'loan') expect(toCents(account.balances.current!)).toBeLessThan(0);
      }
      expect(limits.size).toBe(1);
    }
  });

  it('plants streams that grow with the days: posted ids up to the day, the next occurrence after it', () => {
    for (const day of [linkDay, linkDay + 100, linkDay + 400]) {
      const history = historyOnDay(ledger, day);
      const shown = byId(history.transactions);
      const today = formatIsoDate(day);
      expect(history.plantedStreams.length).toBeGreaterThanOrEqual(15);
      for (const stream of history.plantedStreams) {
        const transactions = stream.transactionIds.map((id) => shown.get(id)!);
        expect(transactions.every((transaction) => transaction !== undefined && !transaction.pending && transaction.date <= today)).toBe(true);
        expect([transactions[0]!.date, transactions[transactions.length - 1]!.date]).toEqual([stream.firstDate, stream.lastDate]);
        if (stream.isActive) expect(stream.nextDate > today).toBe(true);
      }
    }
    const netflix = (day: number) => historyOnDay(ledger, day).plantedStreams.find((stream) => stream.merchantName === 'Netflix')!;
    expect(netflix(linkDay + 100).transactionIds.length).toBeGreaterThan(netflix(linkDay).transactionIds.length + 2);
    expect(netflix(linkDay + 100).transactionIds.slice(0, netflix(linkDay).transactionIds.length)).toEqual(netflix(linkDay).transactionIds);
  });

  it('reads a cursor past the revealed part (an instance whose clock is ahead) as nothing new yet', () => {
    const ahead = encodeCursor(itemId, revealedLength(log, linkDay + 5));
    const page = readSyncPage(log, itemId, decodeCursor(itemId, ahead, log.length), 100, revealedLength(log, linkDay + 2));
    expect(page).toEqual({ added: [], modified: [], removed: [], hasMore: false, nextCursor: ahead });
  });
});

describe('a ledger generated with a horizon', () => {
  it('is what it was without one when the horizon is 0, down to the byte', () => {
    const still = generateSandboxLedger({ seed: 11, asOf });
    expect(JSON.stringify(historyOnDay(still, linkDay))).toBe(JSON.stringify(still.history));
    expect(JSON.stringify(historyOnDay(still, linkDay + 30))).toBe(JSON.stringify(still.history));
  });

  it('holds transactionCount transactions on its link day, and keeps the pace after it', () => {
    const sized = generateSandboxLedger({ seed: 5, asOf, transactionCount: 5000, horizonDays: 400 });
    expect(historyOnDay(sized, linkDay).transactions).toHaveLength(5000);
    const later = historyOnDay(sized, linkDay + 365).transactions.length;
    expect(later).toBeGreaterThan(5000 + 2000);
    expect(later).toBeLessThan(5000 * 2);
  });

  it('is deterministic for the same seed, asOf and horizon', () => {
    const again = buildSyncLog(generateSandboxLedger({ seed: 11, asOf, horizonDays: 400 }));
    expect(again.length).toBe(log.length);
    for (const index of [0, 1000, log.length - 1]) expect(again.changeAt(index)).toEqual(log.changeAt(index));
  });

  it('refuses a horizon that is not a whole number of days from 0 to ten years', () => {
    for (const horizonDays of [-1, 1.5, 3661]) expect(() => generateSandboxLedger({ seed: 1, asOf, horizonDays })).toThrow(RangeError);
  });
});
