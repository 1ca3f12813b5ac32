import type { Institution, ProviderTransaction } from '../bank-link.port.js';
import type { DayNumber } from '../../../core/calendar-day.js';
import { chance, type Random } from '../../../core/seeded-random.js';
import type { HomeCity } from './sandbox-institutions.js';
import type { Payee } from './sandbox-payees.js';
import type { PlantedStreamFrequency } from './sandbox-history.js';
import { opaqueIdFactory } from './opaque-id.factory.js';

export type AccountRole = 'checking' | 'savings' | 'credit' | 'loan';
export const ACCOUNT_ROLES: readonly AccountRole[] = ['checking', 'savings', 'credit', 'loan'];

/**
 * A transaction as the generators plan it: integer cents and day numbers, formatted only once at
 * the end. `day` is the ACH posting day, or for a card purchase the authorisation day; a card
 * purchase (`postLag > 0`) is pending until `day + postLag`.
 */
export interface DraftTransaction {
  readonly serial: number;
  readonly account: AccountRole;
  readonly day: DayNumber;
  readonly postLag: number;
  readonly postedDay: DayNumber;
  /** Still pending on the ledger's last day (its posting lies beyond what was generated). */
  readonly pending: boolean;
  readonly cents: number;
  /** The authorised amount while pending (a restaurant bill before the tip). */
  readonly pendingCents: number;
  readonly payee: Payee;
  readonly name: string;
  /** Index into `LedgerDraft.streams`, or -1. */
  readonly stream: number;
}

export interface StreamRecord {
  readonly key: string;
  readonly account: AccountRole;
  readonly merchantName: string | null;
  readonly description: string;
  readonly frequency: PlantedStreamFrequency;
  readonly streamType: 'inflow' | 'outflow';
  readonly nextDay: DayNumber;
  readonly isActive: boolean;
}

/** A provider-side edit after the transaction was first reported. */
export type ProviderEdit =
  | { readonly kind: 'modified'; readonly day: DayNumber; readonly original: Partial<ProviderTransaction> }
  | { readonly kind: 'removed'; readonly day: DayNumber };

export interface LedgerDraft {
  readonly seed: number;
  readonly firstDay: DayNumber;
  /** The day the history is told from (the link day): two years end here, and past events are placed relative to it. */
  readonly asOf: DayNumber;
  /** The last generated day: `asOf` plus the horizon, the item's future that a moving clock reveals. */
  readonly lastDay: DayNumber;
  readonly institution: Institution;
  readonly home: HomeCity;
  readonly drafts: DraftTransaction[];
  readonly streams: StreamRecord[];
  readonly edits: Map<number, ProviderEdit>;
  readonly masks: Readonly<Record<AccountRole, string>>;
  readonly openingCents: Record<AccountRole, number>;
}

export interface DraftInput {
  readonly account: AccountRole;
  readonly day: DayNumber;
  readonly cents: number;
  readonly payee: Payee;
  readonly name: string;
  readonly postLag?: number;
  readonly pendingCents?: number;
  readonly stream?: number;
}

export function addDraft(ledger: LedgerDraft, input: DraftInput): DraftTransaction {
  const postLag = input.postLag ?? 0;
  const draft: DraftTransaction = {
    serial: ledger.drafts.length,
    account: input.account,
    day: input.day,
    postLag,
    postedDay: input.day + postLag,
    pending: input.day + postLag > ledger.lastDay,
    cents: input.cents,
    pendingCents: input.pendingCents ?? input.cents,
    payee: input.payee,
    name: input.name,
    stream: input.stream ?? -1,
  };
  ledger.drafts.push(draft);
  return draft;
}

export function registerStream(ledger: LedgerDraft, stream: StreamRecord): number {
  ledger.streams.push(stream);
  return ledger.streams.length - 1;
}

/** Card purchases post one to three days after authorisation, most often the next day. */
export function cardPostLag(random: Random): number {
  const u = random();
  return u < 0.5 ? 1 : u < 0.85 ? 2 : 3;
}

export function pickName(random: Random, payee: Payee, primaryShare = 0.7): string {
  const names = payee.names;
  if (names.length === 1 || chance(random, primaryShare)) return names[0] as string;
  return names[1 + Math.floor(random() * (names.length - 1))] as string;
}

export interface TransactionIds {
  readonly posted: (serial: number) => string;
  /** Pending incarnations get their own ids from the upper half of the serial space. */
  readonly pending: (serial: number) => string;
}

export function transactionIds(seed: number): TransactionIds {
  const make = opaqueIdFactory(seed);
  return { posted: make, pending: (serial) => make(serial + 0x40000000) };
}

/** Posted cents per account and day offset, the basis of statements, interest and balances. */
export function dailyPostedTotals(ledger: LedgerDraft, account: AccountRole): Float64Array {
  const totals = new Float64Array(ledger.lastDay - ledger.firstDay + 1);
  for (const draft of ledger.drafts) {
    if (draft.account !== account || draft.pending || ledger.edits.get(draft.serial)?.kind === 'removed') continue;
    totals[draft.postedDay - ledger.firstDay] += draft.cents;
  }
  return totals;
}

/** Integer cents as a decimal string with two places: -1549 → "-15.49". */
export function formatCents(cents: number): string {
  const magnitude = Math.abs(cents);
  const fraction = magnitude % 100;
  return `${cents < 0 ? '-' : ''}${Math.floor(magnitude / 100)}.${fraction < 10 ? '0' : ''}${fraction}`;
}
