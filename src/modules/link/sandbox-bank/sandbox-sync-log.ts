import type { ProviderTransaction } from '../bank-link.port.js';
import type { DayNumber } from '../../../core/calendar-day.js';
import type { SandboxLedger } from './sandbox-history.generator.js';
import { shownOn } from './sandbox-history-on-day.js';
import { SERIAL_SPACE } from './sandbox-history.materializer.js';
import type { DraftTransaction } from './sandbox-ledger.js';

/**
 * The item's change log, which `syncTransactions` pages through. It opens with the item as it
 * stood `catchUpDays` before `asOf` (all `added`), then replays the following days in order, up
 * to the ledger's last day: new pending transactions, pending → posted (remove the pending id,
 * add the posted one), provider modifications and removals. Every change carries its day and the
 * log is sorted by day, so the part a sandbox reveals on a day (`revealedLength`) only grows as
 * its clock moves on, and a position in the log stays a valid cursor. Folding the changes up to
 * a day gives `historyOnDay` of that day; folding the whole log gives `history.transactions`.
 */
export type SyncChange =
  | { readonly kind: 'added'; readonly day: DayNumber; readonly transaction: ProviderTransaction }
  | { readonly kind: 'modified'; readonly day: DayNumber; readonly transaction: ProviderTransaction }
  | { readonly kind: 'removed'; readonly day: DayNumber; readonly transactionId: string };

/** Changes are rendered when read: the log itself is one number per change (a 100k item's is about 2 MB). */
export interface SyncLog {
  readonly length: number;
  /** Non-decreasing along the log. */
  dayAt(index: number): DayNumber;
  changeAt(index: number): SyncChange;
}

export const DEFAULT_CATCH_UP_DAYS = 14;

/** The steps of one day, in order. */
const PENDING_SEEN = 0;
const PENDING_DROPPED = 1;
const POSTED = 2;
const MODIFIED = 3;
const REMOVED = 4;
const PHASES = 5;

/** (day, phase, serial) as one exactly representable number that sorts like the triple. */
const keyOf = (day: DayNumber, phase: number, serial: number): number => (day * PHASES + phase) * SERIAL_SPACE + serial;

export function buildSyncLog(ledger: SandboxLedger, catchUpDays = DEFAULT_CATCH_UP_DAYS): SyncLog {
  const plan = ledger.draft;
  const cutoff = plan.asOf - catchUpDays;
  // The opening snapshot, in the order its transactions first appeared: by the day and step that added each.
  const opening = new Float64Array(plan.drafts.length);
  const replay = new Float64Array(plan.drafts.length * 3);
  let openingLength = 0;
  let replayLength = 0;
  const at = (day: DayNumber, phase: number, serial: number): void => {
    if (day > cutoff) replay[replayLength++] = keyOf(day, phase, serial);
  };
  for (const draft of plan.drafts) {
    const shown = shownOn(plan, draft, cutoff);
    if (shown !== null) opening[openingLength++] = shown === 'pending' ? keyOf(draft.day, PENDING_SEEN, draft.serial) : keyOf(draft.postedDay, POSTED, draft.serial);
    if (draft.postLag > 0) {
      at(draft.day, PENDING_SEEN, draft.serial);
      if (draft.pending) continue;
      at(draft.postedDay, PENDING_DROPPED, draft.serial);
    }
    at(draft.postedDay, POSTED, draft.serial);
    const edit = plan.edits.size > 0 ? plan.edits.get(draft.serial) : undefined;
    if (edit !== undefined) at(edit.day, edit.kind === 'modified' ? MODIFIED : REMOVED, draft.serial);
  }
  const openingSorted = opening.subarray(0, openingLength).sort();
  const replaySorted = replay.subarray(0, replayLength).sort();
  const keys = new Float64Array(openingLength + replayLength);
  // Opening changes are dated on the cutoff, before every replayed day.
  for (let i = 0; i < openingLength; i += 1) {
    const key = openingSorted[i] as number;
    const serial = key % SERIAL_SPACE;
    keys[i] = keyOf(cutoff, ((key - serial) / SERIAL_SPACE) % PHASES, serial);
  }
  keys.set(replaySorted, openingLength);
  return new CompactSyncLog(ledger, keys);
}

class CompactSyncLog implements SyncLog {
  readonly length: number;

  constructor(
    private readonly ledger: SandboxLedger,
    private readonly keys: Float64Array,
  ) {
    this.length = keys.length;
  }

  dayAt(index: number): DayNumber {
    return Math.floor((this.keys[index] as number) / SERIAL_SPACE / PHASES);
  }

  changeAt(index: number): SyncChange {
    const key = this.keys[index] as number;
    const serial = key % SERIAL_SPACE;
    const dayPhase = (key - serial) / SERIAL_SPACE;
    const phase = dayPhase % PHASES;
    const day = (dayPhase - phase) / PHASES;
    const { draft: plan, render, ids } = this.ledger;
    const draft = plan.drafts[serial] as DraftTransaction;
    switch (phase) {
      case PENDING_SEEN:
        return { kind: 'added', day, transaction: render(draft, 'pending') };
      case PENDING_DROPPED:
        return { kind: 'removed', day, transactionId: ids.pending(serial) };
      case POSTED: {
        const posted = render(draft, 'posted');
        const edit = plan.edits.size > 0 ? plan.edits.get(serial) : undefined;
        // Until the provider's correction, the posted transaction shows as it was first reported.
        return { kind: 'added', day, transaction: edit?.kind === 'modified' && edit.day > day ? { ...posted, ...edit.original } : posted };
      }
      case MODIFIED:
        return { kind: 'modified', day, transaction: render(draft, 'posted') };
      default:
        return { kind: 'removed', day, transactionId: ids.posted(serial) };
    }
  }
}

/** How many changes of the log are dated on or before `day`: the part a sandbox shows that day. */
export function revealedLength(log: SyncLog, day: DayNumber): number {
  let low = 0;
  let high = log.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (log.dayAt(middle) <= day) low = middle + 1;
    else high = middle;
  }
  return low;
}

export const changedTransactionId = (change: SyncChange): string =>
  change.kind === 'removed' ? change.transactionId : change.transaction.transactionId;
