import {
  BankLinkError,
  type BankLinkProvider,
  type BankLinkWebhook,
  type BankLinkWebhookCode,
  type ExchangedItem,
  type Institution,
  type ItemStatus,
  type LinkAccount,
} from '../bank-link.port.js';
import { parseIsoDate } from '../../../core/calendar-day.js';
import { hashSeed, mix32 } from '../../../core/seeded-random.js';
import type { SandboxAccount, SandboxHistory } from './sandbox-history.js';
import { generateSandboxLedger, type SandboxLedger } from './sandbox-history.generator.js';
import { SANDBOX_INSTITUTIONS, findSandboxInstitution } from './sandbox-institutions.js';
import { accountsOnDay, clampToLedger, historyOnDay } from './sandbox-history-on-day.js';
import { buildSyncLog, revealedLength, DEFAULT_CATCH_UP_DAYS, type SyncLog } from './sandbox-sync-log.js';
import { decodeCursor, readSyncPage, DEFAULT_SYNC_COUNT } from './sandbox-sync.js';
import { randomBytes } from 'node:crypto';
import { parseWebhookBody, signWebhook, verifyWebhookSignature, type SignedWebhook, type WebhookSecret } from './sandbox-webhooks.js';
import { SANDBOX_ITEM_ERRORS, sandboxWebhook, statusAfter } from './sandbox-webhook-rules.js';
import { opaqueIdFactory } from './opaque-id.factory.js';
import { newlyOpenedAccounts } from './sandbox-new-accounts.js';

export interface SandboxBankOptions {
  readonly seed: number;
  /** `YYYY-MM-DD`: every item's two years of history end on this day (the day it is linked). */
  readonly asOf: string;
  /**
   * Days each item lives on after `asOf` (default 0: time stands still at `asOf`). The clock's
   * UTC day decides how much of them the item shows: syncs, balances and `itemHistory` follow it.
   */
  readonly horizonDays?: number;
  /** Stamps link-token expiry and webhooks and tells the day; defaults to noon UTC on `asOf`. */
  readonly clock?: { now(): Date };
  /** What its webhooks are signed with; a random one of its own by default (it verifies its own). */
  readonly webhookSecret?: WebhookSecret;
  readonly catchUpDays?: number;
}

export interface FiredWebhook extends SignedWebhook {
  readonly webhook: BankLinkWebhook;
}

/** The port plus the controls a provider's sandbox offers. */
export interface SandboxBank extends BankLinkProvider {
  readonly institutions: readonly Institution[];
  /**
   * Stands in for the user completing the link flow at an institution; returns a public token.
   * `transactionCount`: the item holds exactly that many transactions on `asOf` (at least the
   * few hundred its streams and transfers need; fewer is a RangeError at exchange).
   */
  createPublicToken(request: PublicTokenRequest): string;
  /** Produces a signed webhook for the item and applies its state change (login required, repaired, …). */
  fireWebhook(request: { itemId: string; code: BankLinkWebhookCode; at?: Date }): FiredWebhook;
  /** The ground truth behind an item on the clock's day: its transactions (what a full sync gives), accounts and planted streams. */
  itemHistory(itemId: string): SandboxHistory;
  /** Transactions the item's ledger plans over its whole horizon: what it costs to keep in memory. */
  plannedTransactions(itemId: string): number;
  /** The first `count` accounts the bank opened for the item after its link (what `count` reconnects after NEW_ACCOUNTS_AVAILABLE added). */
  newlyOpenedAccounts(itemId: string, count: number): SandboxAccount[];
}

export interface PublicTokenRequest {
  /** The user completing the link flow: the public token is theirs, and so must the link token be. */
  readonly userId: string;
  /** Ignored when `linkToken` reconnects an item: the item's own institution. */
  readonly institutionId?: string;
  /** Ignored when `linkToken` reconnects an item. */
  readonly transactionCount?: number;
  /**
   * The link token the link flow ran with (optional: without one, a new item). One issued to
   * reconnect an item makes a public token for that item (its exchange re-authenticates it); one
   * unknown or expired is INVALID_LINK_TOKEN, as is another user's or one whose item has been removed since.
   */
  readonly linkToken?: string;
}

/** Enough for any benchmark, and well inside the generator's serial space with a horizon. */
export const MAX_TRANSACTION_COUNT = 1_000_000;

export function checkTransactionCount(count: number | undefined): void {
  if (count !== undefined && (!Number.isSafeInteger(count) || count < 0 || count > MAX_TRANSACTION_COUNT)) {
    throw new RangeError(`transactionCount must be an integer from 0 to ${MAX_TRANSACTION_COUNT}, got ${count}`);
  }
}

interface SandboxItem {
  readonly itemId: string;
  /** Replaced by a reconnect: the previous one stops working. */
  accessToken: string;
  readonly ledger: SandboxLedger;
  log: SyncLog | null;
  /** The balances of one day, asked for on every sync: a day's balances never change. */
  accountsOn: { readonly day: number; readonly accounts: readonly SandboxAccount[] } | null;
  status: ItemStatus;
  /** NEW_ACCOUNTS_AVAILABLE: the bank opened an account the item does not share yet; a reconnect adds it. */
  newAccountAvailable: boolean;
  /** Accounts reconnects have added after the link. */
  extraAccounts: number;
}

type PublicTokenGrant = { readonly userId: string } & (
  | { readonly kind: 'new'; readonly institutionId: string; readonly index: number; readonly transactionCount: number | undefined }
  | { readonly kind: 'reconnect'; readonly itemId: string }
);

const DAY_MS = 86_400_000;
const LINK_TOKEN_TTL_MS = 4 * 3_600_000;


export function createSandboxBank(options: SandboxBankOptions): SandboxBank {
  const asOfDay = parseIsoDate(options.asOf);
  const clock = options.clock ?? { now: () => new Date(asOfDay * DAY_MS + DAY_MS / 2) };
  /** The UTC day of the clock, as a day number. */
  const today = (): number => Math.floor(clock.now().getTime() / DAY_MS);
  const secret = options.webhookSecret ?? randomBytes(32);
  const catchUpDays = options.catchUpDays ?? DEFAULT_CATCH_UP_DAYS;
  const itemIds = opaqueIdFactory(hashSeed(options.seed, 'items'));
  const items = new Map<string, SandboxItem>();
  const byAccessToken = new Map<string, SandboxItem>();
  const publicTokens = new Map<string, PublicTokenGrant>();
  const linkTokens = new Map<string, { readonly userId: string; readonly reconnectItemId: string | null; readonly expiresAt: number }>();
  let tokenSerial = 0;
  let grantSerial = 0;

  const token = (kind: 'link' | 'public' | 'access'): string => {
    tokenSerial += 1;
    const hex = [1, 2, 3, 4].map((part) => mix32(hashSeed(options.seed, kind, tokenSerial, part)).toString(16).padStart(8, '0')).join('');
    return `${kind}-sandbox-${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  };
  const itemByToken = (accessToken: string): SandboxItem => {
    const item = byAccessToken.get(accessToken);
    if (item === undefined) throw new BankLinkError('INVALID_ACCESS_TOKEN', 'The access token is not one of this sandbox’s items');
    return item;
  };
  const itemById = (itemId: string): SandboxItem => {
    const item = items.get(itemId);
    if (item === undefined) throw new BankLinkError('ITEM_NOT_FOUND', `No sandbox item ${itemId}`);
    return item;
  };

  return {
    institutions: SANDBOX_INSTITUTIONS,

    async createLinkToken({ userId, reconnectItemId }) {
      if (reconnectItemId !== undefined) itemById(reconnectItemId);
      const linkToken = token('link');
      const expiresAt = clock.now().getTime() + LINK_TOKEN_TTL_MS;
      linkTokens.set(linkToken, { userId, reconnectItemId: reconnectItemId ?? null, expiresAt });
      return { linkToken, expiration: new Date(expiresAt).toISOString() };
    },

    createPublicToken(request) {
      const { userId } = request;
      if (request.linkToken !== undefined) {
        const link = linkTokens.get(request.linkToken);
        if (link === undefined || link.expiresAt <= clock.now().getTime() || link.userId !== userId) throw new BankLinkError('INVALID_LINK_TOKEN', 'The link token is unknown, expired or another user’s');
        if (link.reconnectItemId !== null) {
          if (!items.has(link.reconnectItemId)) throw new BankLinkError('INVALID_LINK_TOKEN', 'The item the link token reconnects has been removed');
          const publicToken = token('public');
          publicTokens.set(publicToken, { userId, kind: 'reconnect', itemId: link.reconnectItemId });
          return publicToken;
        }
      }
      const index = grantSerial;
      const institutionId = request.institutionId ?? (SANDBOX_INSTITUTIONS[index % SANDBOX_INSTITUTIONS.length] as Institution).id;
      if (findSandboxInstitution(institutionId) === undefined) throw new BankLinkError('INSTITUTION_NOT_FOUND', `No sandbox institution ${institutionId}`);
      checkTransactionCount(request.transactionCount);
      const publicToken = token('public');
      publicTokens.set(publicToken, { userId, kind: 'new', institutionId, index, transactionCount: request.transactionCount });
      grantSerial += 1;
      return publicToken;
    },

    async exchangePublicToken({ publicToken, userId }) {
      const grant = publicTokens.get(publicToken);
      if (grant === undefined || grant.userId !== userId) throw new BankLinkError('INVALID_PUBLIC_TOKEN', 'The public token is unknown, another user’s or was already exchanged');
      publicTokens.delete(publicToken);
      if (grant.kind === 'reconnect') return reconnect(grant.itemId);
      const ledger = generateSandboxLedger({
        seed: hashSeed(options.seed, 'item', grant.index),
        asOf: options.asOf,
        institutionId: grant.institutionId,
        ...(grant.transactionCount === undefined ? {} : { transactionCount: grant.transactionCount }),
        ...(options.horizonDays === undefined ? {} : { horizonDays: options.horizonDays }),
      });
      const item: SandboxItem = { itemId: itemIds(grant.index), accessToken: token('access'), ledger, log: null, accountsOn: null, status: { status: 'ok' }, newAccountAvailable: false, extraAccounts: 0 };
      items.set(item.itemId, item);
      byAccessToken.set(item.accessToken, item);
      return { itemId: item.itemId, accessToken: item.accessToken, institution: ledger.draft.institution, accounts: linkAccountsOf(item) };
    },

    async syncTransactions({ accessToken, cursor, count }) {
      const item = itemByToken(accessToken);
      if (item.status.status === 'login_required') throw new BankLinkError('ITEM_LOGIN_REQUIRED', SANDBOX_ITEM_ERRORS.ITEM_LOGIN_REQUIRED.errorMessage);
      item.log ??= buildSyncLog(item.ledger, catchUpDays);
      // Positions up to the whole log's length are this item's: one past today's part is from an instance whose clock is ahead.
      const position = cursor === undefined || cursor === '' ? 0 : decodeCursor(item.itemId, cursor, item.log.length);
      // Never less than the link day shows (a clock behind asOf), as historyOnDay clamps too.
      return readSyncPage(item.log, item.itemId, position, count ?? DEFAULT_SYNC_COUNT, revealedLength(item.log, clampToLedger(item.ledger.draft, today())));
    },

    async getItemStatus(accessToken) {
      return itemByToken(accessToken).status;
    },

    async removeItem(accessToken) {
      const item = itemByToken(accessToken);
      byAccessToken.delete(accessToken);
      items.delete(item.itemId);
    },

    async getAccounts(accessToken) {
      return linkAccountsOf(itemByToken(accessToken));
    },

    verifyWebhook: async (rawBody, headers, now) => verifyWebhookSignature(rawBody, headers, secret, now),
    parseWebhook: (rawBody) => parseWebhookBody(rawBody),

    fireWebhook({ itemId, code, at }) {
      const item = itemById(itemId);
      const firedAt = at ?? clock.now();
      const webhook = sandboxWebhook(item.itemId, code, firedAt);
      item.status = statusAfter(item.status, webhook);
      if (webhook.code === 'NEW_ACCOUNTS_AVAILABLE') item.newAccountAvailable = true;
      return { ...signWebhook(webhook, secret, firedAt), webhook };
    },

    itemHistory: (itemId) => {
      const item = itemById(itemId);
      const { ledger } = item;
      // Without a horizon the item never changes: its history is the generated one, built once.
      const history = ledger.draft.lastDay === ledger.draft.asOf ? ledger.history : historyOnDay(ledger, today());
      return item.extraAccounts === 0 ? history : { ...history, accounts: [...history.accounts, ...newlyOpenedAccounts(ledger.draft, item.extraAccounts)] };
    },

    plannedTransactions: (itemId) => itemById(itemId).ledger.draft.drafts.length,

    newlyOpenedAccounts: (itemId, count) => newlyOpenedAccounts(itemById(itemId).ledger.draft, count),
  };

  /** The user logged in again through the link flow: a new access token (the old one stops working), status ok, the account the bank opened since shared. */
  function reconnect(itemId: string): ExchangedItem {
    const item = items.get(itemId);
    if (item === undefined) throw new BankLinkError('INVALID_PUBLIC_TOKEN', 'The item the public token reconnects has been removed');
    byAccessToken.delete(item.accessToken);
    item.accessToken = token('access');
    byAccessToken.set(item.accessToken, item);
    item.status = { status: 'ok' };
    if (item.newAccountAvailable) {
      item.extraAccounts += 1;
      item.newAccountAvailable = false;
    }
    return { itemId: item.itemId, accessToken: item.accessToken, institution: item.ledger.draft.institution, accounts: linkAccountsOf(item) };
  }

  function linkAccountsOf(item: SandboxItem): LinkAccount[] {
    const { draft } = item.ledger;
    const day = clampToLedger(draft, today());
    if (item.accountsOn?.day !== day) item.accountsOn = { day, accounts: draft.lastDay === draft.asOf ? item.ledger.history.accounts : accountsOnDay(item.ledger, day) };
    const accounts = item.extraAccounts === 0 ? item.accountsOn.accounts : [...item.accountsOn.accounts, ...newlyOpenedAccounts(draft, item.extraAccounts)];
    return accounts.map(({ openingBalance: _opening, ...account }): LinkAccount => account);
  }
}
