import type { ProviderTransaction } from '../bank-link.port.js';
import type { DayNumber } from '../../../core/calendar-day.js';
import type { SandboxLedger } from './sandbox-history.generator.js';
import type { PlantedStream, SandboxAccount, SandboxHistory } from './sandbox-history.js';
import { accountsOf, creditLimitCents, currentDraftsOldestFirst, plantedStreamOf, SERIAL_SPACE } from './sandbox-history.materializer.js';
import type { AccountRole, DraftTransaction, LedgerDraft } from './sandbox-ledger.js';

/**
 * The item as it stands at the end of `day`, for a ledger generated past `asOf`: what folding the
 * sync log's changes dated on or before `day` gives. A transaction authorised by then is there,
 * pending until its posted day; a provider edit shows from its day (before it, the original);
 * a dropped duplicate is there until the day it is dropped. Days outside `asOf..lastDay` are
 * clamped: an item is never seen before it was linked, and stands still past its horizon.
 */
export type Shown = 'pending' | 'posted' | 'original';

export function clampToLedger(ledger: LedgerDraft, day: DayNumber): DayNumber {
  return Math.min(Math.max(day, ledger.asOf), ledger.lastDay);
}

/** How a planned transaction shows at the end of `day`, or null when it is not there. */
export function shownOn(ledger: LedgerDraft, draft: DraftTransaction, day: DayNumber): Shown | null {
  if (draft.day > day) return null;
  const edit = ledger.edits.size > 0 ? ledger.edits.get(draft.serial) : undefined;
  if (edit?.kind === 'removed' && edit.day <= day) return null;
  if (draft.postLag > 0 && draft.postedDay > day) return 'pending';
  return edit?.kind === 'modified' && edit.day > day ? 'original' : 'posted';
}

/** Cents as the transaction shows them: an amount the provider corrects later shows uncorrected until then. */
function shownCents(ledger: LedgerDraft, draft: DraftTransaction, shown: Shown): number {
  if (shown === 'pending') return draft.pendingCents;
  if (shown === 'original') {
    const edit = ledger.edits.get(draft.serial);
    const amount = edit?.kind === 'modified' ? edit.original.amount : undefined;
    if (amount !== undefined) return Math.round(Number(amount) * 100);
  }
  return draft.cents;
}

const creditLimits = new WeakMap<LedgerDraft, number>();

/** The card's limit over the whole ledger, so it does not change as the days go by. */
function creditLimitOf(ledger: LedgerDraft): number {
  const known = creditLimits.get(ledger);
  if (known !== undefined) return known;
  let running = ledger.openingCents.credit;
  let lowest = running;
  for (const draft of currentDraftsOldestFirst(ledger)) {
    if (draft.pending || draft.account !== 'credit') continue;
    running += draft.cents;
    if (running < lowest) lowest = running;
  }
  const limit = creditLimitCents(ledger, lowest);
  creditLimits.set(ledger, limit);
  return limit;
}

const zeroTotals = (): Record<AccountRole, number> => ({ checking: 0, savings: 0, credit: 0, loan: 0 });

/** Balances on `day` without rendering a transaction: `getAccounts` asks for them on every call. */
export function accountsOnDay(ledger: SandboxLedger, day: DayNumber): SandboxAccount[] {
  const plan = ledger.draft;
  const on = clampToLedger(plan, day);
  const posted = zeroTotals();
  const pending = zeroTotals();
  for (const draft of plan.drafts) {
    const shown = shownOn(plan, draft, on);
    if (shown === null) continue;
    (shown === 'pending' ? pending : posted)[draft.account] += shownCents(plan, draft, shown);
  }
  return accountsOf(plan, ledger.renderer, { posted, pending, limitCents: creditLimitOf(plan) });
}

export function historyOnDay(ledger: SandboxLedger, day: DayNumber): SandboxHistory {
  const plan = ledger.draft;
  const on = clampToLedger(plan, day);
  const { render } = ledger.renderer;
  // Oldest first by the day shown (authorised while pending, else posted), then serial: as `buildHistory` orders them.
  const keys = new Float64Array(plan.drafts.length);
  let kept = 0;
  for (const draft of plan.drafts) {
    const shown = shownOn(plan, draft, on);
    if (shown === null) continue;
    keys[kept] = (shown === 'pending' ? draft.day : draft.postedDay) * SERIAL_SPACE + draft.serial;
    kept += 1;
  }
  const sorted = keys.subarray(0, kept).sort();

  const posted = zeroTotals();
  const pending = zeroTotals();
  const streams = plan.streams.map(() => ({ ids: [] as string[], cents: 0, first: 0, last: 0 }));
  const transactions: ProviderTransaction[] = new Array(kept);
  for (let i = 0; i < kept; i += 1) {
    const draft = plan.drafts[(sorted[i] as number) % SERIAL_SPACE] as DraftTransaction;
    const shown = shownOn(plan, draft, on) as Shown;
    const cents = shownCents(plan, draft, shown);
    if (shown === 'pending') {
      transactions[i] = render(draft, 'pending');
      pending[draft.account] += cents;
      continue;
    }
    const transaction = render(draft, 'posted');
    const edit = plan.edits.get(draft.serial);
    transactions[i] = shown === 'original' && edit?.kind === 'modified' ? { ...transaction, ...edit.original } : transaction;
    posted[draft.account] += cents;
    if (draft.stream >= 0) {
      const stream = streams[draft.stream]!;
      if (stream.ids.length === 0) stream.first = draft.postedDay;
      stream.ids.push(transaction.transactionId);
      stream.cents += cents;
      stream.last = draft.postedDay;
    }
  }

  const nextDays = plan.streams.map((record) => record.nextDay);
  for (const draft of plan.drafts) {
    if (draft.stream >= 0 && draft.day > on && draft.day < (nextDays[draft.stream] as number)) nextDays[draft.stream] = draft.day;
  }
  const plantedStreams: PlantedStream[] = [];
  plan.streams.forEach((record, index) => {
    const stream = streams[index]!;
    if (stream.ids.length > 0) plantedStreams.push(plantedStreamOf(ledger.renderer, record, stream, nextDays[index] as number));
  });
  const accounts = accountsOf(plan, ledger.renderer, { posted, pending, limitCents: creditLimitOf(plan) });
  return { institution: plan.institution, accounts, transactions, plantedStreams };
}
