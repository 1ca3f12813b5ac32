import { addDraft, formatCents, type DraftTransaction, type LedgerDraft } from './sandbox-ledger.js';
import { randomInt, randomStream } from '../../../core/seeded-random.js';

/**
 * Provider-side corrections in the last weeks, so a sync shows `modified` and `removed`:
 * late merchant enrichment, a corrected amount, and duplicate charges the bank later drops.
 * Only non-stream transactions are touched, so the planted ground truth never depends on them.
 */
const MODIFICATIONS = 4;
const DUPLICATES = 2;

function recentCandidates(ledger: LedgerDraft): DraftTransaction[] {
  const from = ledger.asOf - 20;
  const to = ledger.asOf - 3;
  return ledger.drafts.filter(
    (draft) => draft.postedDay >= from && draft.postedDay <= to && draft.stream === -1 && !draft.pending && draft.payee.merchantName !== null,
  );
}

export function plantProviderEdits(ledger: LedgerDraft): void {
  const random = randomStream(ledger.seed, 'provider-edits');
  const candidates = recentCandidates(ledger);
  const chosen = new Set<number>();
  const wanted = Math.min(MODIFICATIONS + DUPLICATES, candidates.length);
  while (chosen.size < wanted) chosen.add(randomInt(random, 0, candidates.length - 1));
  [...chosen].forEach((candidateIndex, i) => {
    const draft = candidates[candidateIndex] as DraftTransaction;
    const editDay = draft.postedDay + randomInt(random, 1, ledger.asOf - draft.postedDay);
    if (i < MODIFICATIONS) {
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
