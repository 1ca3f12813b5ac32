import { addDraft, formatCents, type DraftTransaction, type LedgerDraft } from './sandbox-ledger.js';
import { randomInt, randomStream, type Random } from '../../../core/seeded-random.js';
import type { DayNumber } from '../../../core/calendar-day.js';

/**
 * Provider-side corrections, so a sync shows `modified` and `removed`: late merchant enrichment,
 * a corrected amount, and duplicate charges the bank later drops. Six in the weeks before `asOf`,
 * then three in every 30 days of the horizon after it, so an item that lives on keeps seeing them.
 * Only non-stream transactions are touched, so the planted ground truth never depends on them.
 */
const BEFORE_AS_OF = { modifications: 4, duplicates: 2 };
const PER_LATER_WINDOW = { modifications: 2, duplicates: 1 };
export const EDIT_WINDOW_DAYS = 30;

/** Posted 3 to 20 days before `windowEnd`: late enough to be corrected within the window. */
function candidatesBefore(ledger: LedgerDraft, windowEnd: DayNumber): DraftTransaction[] {
  const from = windowEnd - 20;
  const to = windowEnd - 3;
  return ledger.drafts.filter(
    (draft) => draft.postedDay >= from && draft.postedDay <= to && draft.stream === -1 && !draft.pending && draft.payee.merchantName !== null,
  );
}

function plantEdits(ledger: LedgerDraft, windowEnd: DayNumber, wanted: typeof BEFORE_AS_OF, random: Random): void {
  const candidates = candidatesBefore(ledger, windowEnd);
  const chosen = new Set<number>();
  const count = Math.min(wanted.modifications + wanted.duplicates, candidates.length);
  while (chosen.size < count) chosen.add(randomInt(random, 0, candidates.length - 1));
  [...chosen].forEach((candidateIndex, i) => {
    const draft = candidates[candidateIndex] as DraftTransaction;
    const editDay = draft.postedDay + randomInt(random, 1, windowEnd - draft.postedDay);
    if (i < wanted.modifications) {
      const original =
        i % 2 === 0
          ? { merchantName: null, categorySystemKey: null, counterparties: [], logoUrl: null, website: null }
          : { amount: formatCents(draft.cents + randomInt(random, 1, 300) * (draft.cents < 0 ? 1 : -1)) };
      ledger.edits.set(draft.serial, { kind: 'modified', day: editDay, original });
      return;
    }
    const duplicate = addDraft(ledger, {
      account: draft.account, day: draft.day, cents: draft.cents, pendingCents: draft.pendingCents,
      payee: draft.payee, name: draft.name, postLag: draft.postLag,
    });
    ledger.edits.set(duplicate.serial, { kind: 'removed', day: editDay });
  });
}

export function plantProviderEdits(ledger: LedgerDraft): void {
  plantEdits(ledger, ledger.asOf, BEFORE_AS_OF, randomStream(ledger.seed, 'provider-edits'));
  // Windows never overlap (18 candidate days in 30), and a later window's duplicate is authorised after `asOf`.
  for (let windowEnd = ledger.asOf + EDIT_WINDOW_DAYS; windowEnd <= ledger.lastDay; windowEnd += EDIT_WINDOW_DAYS) {
    plantEdits(ledger, windowEnd, PER_LATER_WINDOW, randomStream(ledger.seed, `provider-edits:${windowEnd - ledger.asOf}`));
  }
}
