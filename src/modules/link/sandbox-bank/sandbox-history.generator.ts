import type { Institution, ProviderTransaction } from '../bank-link.port.js';
import { addMonths, isoDateTable, parseIsoDate } from '../../../core/calendar-day.js';
import { pick, randomInt, randomStream } from '../../../core/seeded-random.js';
import { addCashAndFees, addCoffeeHabit, addEverydaySpending, addReturnedPurchases, addTaxRefund, addTrips } from './everyday-spending.generator.js';
import { addCardPayments, addSavingsInterest, addSavingsTransfers, cardPaymentTransactionCount, checkingOpeningCents } from './own-transfers.generator.js';
import { plantStreams } from './planted-streams.generator.js';
import { plantProviderEdits } from './provider-edits.generator.js';
import type { SandboxHistory, SandboxHistoryOptions } from './sandbox-history.js';
import { HOME_CITIES, SANDBOX_INSTITUTIONS, findSandboxInstitution } from './sandbox-institutions.js';
import { ACCOUNT_ROLES, formatCents, transactionIds, type AccountRole, type DraftTransaction, type LedgerDraft, type TransactionIds } from './sandbox-ledger.js';
import { buildHistory, type Renderer } from './sandbox-history.materializer.js';

/** The generated item with what the sync log needs beyond the current state. */
export interface SandboxLedger {
  /** The item on its last generated day (`asOf` without a horizon); built on first use. */
  readonly history: SandboxHistory;
  readonly draft: LedgerDraft;
  /** Renders one incarnation of a planned transaction, exactly as the history would. */
  readonly render: (draft: DraftTransaction, incarnation: 'pending' | 'posted') => ProviderTransaction;
  readonly renderer: Renderer;
  /** The ids `render` gives each incarnation, without rendering it. */
  readonly ids: TransactionIds;
}

/** Ten years: far beyond any sandbox item's life, and well inside the serial space at any count. */
export const MAX_HORIZON_DAYS = 3660;

function validated(options: SandboxHistoryOptions): { asOf: number; institution: Institution | undefined } {
  if (!Number.isSafeInteger(options.seed)) throw new RangeError(`seed must be an integer, got ${options.seed}`);
  const horizon = options.horizonDays;
  if (horizon !== undefined && (!Number.isSafeInteger(horizon) || horizon < 0 || horizon > MAX_HORIZON_DAYS)) throw new RangeError(`horizonDays must be an integer from 0 to ${MAX_HORIZON_DAYS}, got ${horizon}`);
  const asOf = parseIsoDate(options.asOf);
  const institution = options.institutionId === undefined ? undefined : findSandboxInstitution(options.institutionId);
  if (options.institutionId !== undefined && institution === undefined) throw new RangeError(`Unknown sandbox institution: ${options.institutionId}`);
  const count = options.transactionCount;
  if (count !== undefined && (!Number.isSafeInteger(count) || count < 0)) throw new RangeError(`transactionCount must be a non-negative integer, got ${count}`);
  return { asOf, institution };
}

export function generateSandboxLedger(options: SandboxHistoryOptions): SandboxLedger {
  const { asOf, institution } = validated(options);
  const seed = options.seed >>> 0;
  const random = randomStream(seed, 'item');
  const masks = {} as Record<AccountRole, string>;
  for (const role of ACCOUNT_ROLES) masks[role] = String(randomInt(random, 1000, 9999));
  const ledger: LedgerDraft = {
    seed,
    firstDay: addMonths(asOf, -24) + 1,
    asOf,
    lastDay: asOf + (options.horizonDays ?? 0),
    institution: institution ?? pick(random, SANDBOX_INSTITUTIONS),
    home: pick(random, HOME_CITIES),
    drafts: [],
    streams: [],
    edits: new Map(),
    masks,
    openingCents: {
      checking: 0,
      savings: randomInt(random, 40, 150) * 10000,
      credit: -randomInt(random, 30000, 90000),
      loan: -randomInt(random, 150, 280) * 10000,
    },
  };
  const checkingBase = randomInt(random, 1500, 4000) * 100;

  plantStreams(ledger);
  addCoffeeHabit(ledger);
  addReturnedPurchases(ledger);
  addTrips(ledger);
  addCashAndFees(ledger);
  addTaxRefund(ledger);
  addSavingsTransfers(ledger);
  addSavingsInterest(ledger);
  // transactionCount is the item as it stands on `asOf`; the horizon after it keeps the same pace.
  const structural = ledger.drafts.filter((draft) => draft.day <= ledger.asOf).length + cardPaymentTransactionCount(ledger, ledger.asOf);
  const everyday = options.transactionCount === undefined ? defaultEverydayCount(ledger) : options.transactionCount - structural;
  if (everyday < 0) throw new RangeError(`transactionCount must be at least ${structural} for this seed and asOf (streams, transfers and noise alone), got ${options.transactionCount}`);
  const historyDays = ledger.asOf - ledger.firstDay + 1;
  const spans = [{ count: everyday, from: ledger.firstDay, to: ledger.asOf }];
  if (ledger.lastDay > ledger.asOf) spans.push({ count: Math.round((everyday * (ledger.lastDay - ledger.asOf)) / historyDays), from: ledger.asOf + 1, to: ledger.lastDay });
  addEverydaySpending(ledger, spans);
  addCardPayments(ledger);
  plantProviderEdits(ledger);
  ledger.openingCents.checking = checkingOpeningCents(ledger, checkingBase);
  ledger.openingCents.loan -= loanPaidAfterAsOf(ledger);

  const isoDate = isoDateTable(ledger.firstDay - 1, ledger.lastDay + 62);
  const ids = accountIds(ledger);
  const txIds = transactionIds(seed);
  const render = (draft: DraftTransaction, incarnation: 'pending' | 'posted'): ProviderTransaction =>
    renderTransaction(txIds, ids, isoDate, draft, incarnation);
  const renderer: Renderer = { isoDate, render, accountIds: ids };
  let history: SandboxHistory | undefined;
  return {
    get history() {
      return (history ??= buildHistory(ledger, renderer));
    },
    draft: ledger,
    render,
    renderer,
    ids: txIds,
  };
}

export function generateSandboxHistory(options: SandboxHistoryOptions): SandboxHistory {
  return generateSandboxLedger(options).history;
}

/** The loan owes that much more at the start, so the horizon's payments never pay it past zero. */
function loanPaidAfterAsOf(ledger: LedgerDraft): number {
  let cents = 0;
  for (const draft of ledger.drafts) if (draft.account === 'loan' && draft.day > ledger.asOf) cents += draft.cents;
  return cents;
}

/** Two to three everyday purchases a day. */
function defaultEverydayCount(ledger: LedgerDraft): number {
  const random = randomStream(ledger.seed, 'everyday-count');
  return Math.round((ledger.asOf - ledger.firstDay + 1) * (2.3 + random() * 0.5));
}

/** The item's accounts' ids, one series per ledger seed: the generated accounts are its first numbers, accounts opened later the next ones. */
export function accountIdSeries(ledger: Pick<LedgerDraft, 'seed'>): (number: number) => string {
  return transactionIds(ledger.seed ^ 0xacc0acc0).posted;
}

export function accountIds(ledger: Pick<LedgerDraft, 'seed'>): Readonly<Record<AccountRole, string>> {
  const accountId = accountIdSeries(ledger);
  const entries = ACCOUNT_ROLES.map((role, index) => [role, accountId(index)] as const);
  return Object.fromEntries(entries) as Record<AccountRole, string>;
}

function renderTransaction(
  txIds: TransactionIds,
  ids: Readonly<Record<AccountRole, string>>,
  isoDate: (day: number) => string,
  draft: DraftTransaction,
  incarnation: 'pending' | 'posted',
): ProviderTransaction {
  const pending = incarnation === 'pending';
  const payee = draft.payee;
  return {
    transactionId: pending ? txIds.pending(draft.serial) : txIds.posted(draft.serial),
    accountId: ids[draft.account],
    amount: formatCents(pending ? draft.pendingCents : draft.cents),
    isoCurrencyCode: 'USD',
    date: isoDate(pending ? draft.day : draft.postedDay),
    authorizedDate: isoDate(draft.day),
    name: draft.name,
    merchantName: payee.merchantName,
    categorySystemKey: payee.category,
    paymentChannel: payee.channel,
    pending,
    pendingTransactionId: !pending && draft.postLag > 0 ? txIds.pending(draft.serial) : null,
    counterparties: payee.counterparties,
    location: payee.location,
    logoUrl: payee.logoUrl,
    website: payee.website,
  };
}
