import type { ProviderTransaction } from '../bank-link.port.js';
import type { PlantedStream, SandboxAccount, SandboxHistory } from './sandbox-history.js';
import type { DayNumber } from '../../../core/calendar-day.js';
import { formatCents, type AccountRole, type DraftTransaction, type LedgerDraft, type StreamRecord } from './sandbox-ledger.js';

/**
 * Turns the planned ledger into the item's current state and its ground truth: transactions
 * oldest first, account balances (`current = opening + Σ posted`), and the planted streams with
 * the ids of their posted transactions.
 */
export interface Renderer {
  readonly isoDate: (day: number) => string;
  readonly render: (draft: DraftTransaction, incarnation: 'pending' | 'posted') => ProviderTransaction;
  readonly accountIds: Readonly<Record<AccountRole, string>>;
}

interface AccountProfile {
  readonly name: string;
  readonly officialName: string;
  readonly type: SandboxAccount['type'];
  readonly subtype: string;
}

const ACCOUNT_PROFILES: Record<AccountRole, AccountProfile> = {
  checking: { name: 'Everyday Checking', officialName: 'Everyday Checking Account', type: 'depository', subtype: 'checking' },
  savings: { name: 'High-Yield Savings', officialName: 'High-Yield Savings Account', type: 'depository', subtype: 'savings' },
  credit: { name: 'Rewards Card', officialName: 'Rewards Visa Signature', type: 'credit', subtype: 'credit card' },
  loan: { name: 'Auto Loan', officialName: 'Auto Loan', type: 'loan', subtype: 'auto' },
};

export const SERIAL_SPACE = 2 ** 22;

/** Sorting numeric keys (day, then serial) natively is several times faster than a comparator. */
export function currentDraftsOldestFirst(ledger: LedgerDraft): DraftTransaction[] {
  const { drafts, edits } = ledger;
  if (drafts.length >= SERIAL_SPACE) throw new RangeError(`At most ${SERIAL_SPACE - 1} planned transactions`);
  const keys = new Float64Array(drafts.length);
  let kept = 0;
  for (const draft of drafts) {
    if (edits.size > 0 && edits.get(draft.serial)?.kind === 'removed') continue;
    keys[kept] = (draft.pending ? draft.day : draft.postedDay) * SERIAL_SPACE + draft.serial;
    kept += 1;
  }
  const sorted = keys.subarray(0, kept).sort();
  const current: DraftTransaction[] = new Array(kept);
  for (let i = 0; i < kept; i += 1) current[i] = drafts[(sorted[i] as number) % SERIAL_SPACE] as DraftTransaction;
  return current;
}

export function buildHistory(ledger: LedgerDraft, renderer: Renderer): SandboxHistory {
  const current = currentDraftsOldestFirst(ledger);

  const posted: Record<AccountRole, number> = { checking: 0, savings: 0, credit: 0, loan: 0 };
  const pending: Record<AccountRole, number> = { checking: 0, savings: 0, credit: 0, loan: 0 };
  let creditRunning = ledger.openingCents.credit;
  let creditLowest = creditRunning;
  const streams = ledger.streams.map(() => ({ ids: [] as string[], cents: 0, first: 0, last: 0 }));
  const transactions: ProviderTransaction[] = new Array(current.length);

  current.forEach((draft, index) => {
    const transaction = renderer.render(draft, draft.pending ? 'pending' : 'posted');
    transactions[index] = transaction;
    if (draft.pending) {
      pending[draft.account] += draft.pendingCents;
      return;
    }
    posted[draft.account] += draft.cents;
    if (draft.account === 'credit') {
      creditRunning += draft.cents;
      if (creditRunning < creditLowest) creditLowest = creditRunning;
    }
    if (draft.stream >= 0) {
      const stream = streams[draft.stream]!;
      if (stream.ids.length === 0) stream.first = draft.postedDay;
      stream.ids.push(transaction.transactionId);
      stream.cents += draft.cents;
      stream.last = draft.postedDay;
    }
  });

  const limitCents = creditLimitCents(ledger, creditLowest);
  const accounts = accountsOf(ledger, renderer, { posted, pending, limitCents });

  const plantedStreams: PlantedStream[] = [];
  ledger.streams.forEach((record, index) => {
    const stream = streams[index]!;
    if (stream.ids.length > 0) plantedStreams.push(plantedStreamOf(renderer, record, stream, record.nextDay));
  });

  return { institution: ledger.institution, accounts, transactions, plantedStreams };
}

/** A limit comfortably above the deepest balance the card reached, so `available` stays positive. */
export function creditLimitCents(ledger: LedgerDraft, creditLowestCents: number): number {
  return Math.max(500000 + (ledger.seed % 11) * 100000, Math.ceil((-creditLowestCents * 1.5) / 100000) * 100000);
}

export interface AccountTotals {
  /** Cents of the posted transactions shown, per account. */
  readonly posted: Readonly<Record<AccountRole, number>>;
  /** Cents of the pending transactions shown, per account. */
  readonly pending: Readonly<Record<AccountRole, number>>;
  readonly limitCents: number;
}

/** The four accounts with `current = opening + posted` and `available` as the port defines it. */
export function accountsOf(ledger: LedgerDraft, renderer: Pick<Renderer, 'accountIds'>, { posted, pending, limitCents }: AccountTotals): SandboxAccount[] {
  return (Object.keys(ACCOUNT_PROFILES) as AccountRole[]).map((role): SandboxAccount => {
    const profile = ACCOUNT_PROFILES[role];
    const currentCents = ledger.openingCents[role] + posted[role];
    const available = role === 'loan' ? null : formatCents((role === 'credit' ? limitCents : 0) + currentCents + pending[role]);
    return {
      linkAccountId: renderer.accountIds[role],
      name: profile.name,
      officialName: `${ledger.institution.name} ${profile.officialName}`,
      mask: ledger.masks[role],
      type: profile.type,
      subtype: profile.subtype,
      currency: 'USD',
      balances: { current: formatCents(currentCents), available, limit: role === 'credit' ? formatCents(limitCents) : null },
      openingBalance: formatCents(ledger.openingCents[role]),
    };
  });
}

/** A stream's posted transactions so far, oldest first, with their total and first and last posting days. */
export interface StreamPostings {
  readonly ids: string[];
  readonly cents: number;
  readonly first: DayNumber;
  readonly last: DayNumber;
}

export function plantedStreamOf(renderer: Renderer, record: StreamRecord, postings: StreamPostings, nextDay: DayNumber): PlantedStream {
  return {
    streamId: `strm_${renderer.accountIds.checking.slice(0, 6)}${record.key}`,
    accountId: renderer.accountIds[record.account],
    merchantName: record.merchantName,
    description: record.description,
    frequency: record.frequency,
    streamType: record.streamType,
    averageAmount: formatCents(Math.round(postings.cents / postings.ids.length)),
    transactionIds: postings.ids,
    firstDate: renderer.isoDate(postings.first),
    lastDate: renderer.isoDate(postings.last),
    nextDate: renderer.isoDate(nextDay),
    isActive: record.isActive,
  };
}
