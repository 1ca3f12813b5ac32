import {
  BankLinkError,
  type BankLinkProvider,
  type BankLinkWebhook,
  type BankLinkWebhookCode,
  type Institution,
  type ItemStatus,
  type LinkAccount,
} from '../bank-link.port.js';
import { parseIsoDate } from '../../../core/calendar-day.js';
import { hashSeed, mix32 } from '../../../core/seeded-random.js';
import type { SandboxHistory } from './sandbox-history.js';
import { generateSandboxLedger, type SandboxLedger } from './sandbox-history.generator.js';
import { SANDBOX_INSTITUTIONS, findSandboxInstitution } from './sandbox-institutions.js';
import { buildSyncLog, decodeCursor, readSyncPage, DEFAULT_CATCH_UP_DAYS, DEFAULT_SYNC_COUNT, type SyncChange } from './sandbox-sync.js';
import { parseWebhookBody, signWebhook, verifyWebhookSignature, type SignedWebhook } from './sandbox-webhooks.js';
import { SANDBOX_ITEM_ERRORS, sandboxWebhook, statusAfter } from './sandbox-webhook-rules.js';
import { opaqueIdFactory } from './opaque-id.factory.js';

export const SANDBOX_WEBHOOK_SECRET = 'ledgerline-sandbox-webhook-secret';

export interface SandboxBankOptions {
  readonly seed: number;
  /** `YYYY-MM-DD`: every item's history ends on this day. */
  readonly asOf: string;
  /** Stamps link-token expiry and webhooks; defaults to noon UTC on `asOf`. */
  readonly clock?: { now(): Date };
  readonly webhookSecret?: string;
  readonly catchUpDays?: number;
}

export interface FiredWebhook extends SignedWebhook {
  readonly webhook: BankLinkWebhook;
}

/** The port plus the controls a provider's sandbox offers. */
export interface SandboxBank extends BankLinkProvider {
  readonly institutions: readonly Institution[];
  /** Stands in for the user completing the link flow at an institution; returns a public token. */
  createPublicToken(request?: { institutionId?: string }): string;
  /** Produces a signed webhook for the item and applies its state change (login required, repaired, …). */
  fireWebhook(request: { itemId: string; code: BankLinkWebhookCode; at?: Date }): FiredWebhook;
  /** The ground truth behind an item: its current transactions, accounts and planted streams. */
  itemHistory(itemId: string): SandboxHistory;
}

interface SandboxItem {
  readonly itemId: string;
  readonly accessToken: string;
  readonly ledger: SandboxLedger;
  log: SyncChange[] | null;
  status: ItemStatus;
}

const DAY_MS = 86_400_000;
const LINK_TOKEN_TTL_MS = 4 * 3_600_000;


export function createSandboxBank(options: SandboxBankOptions): SandboxBank {
  const asOfDay = parseIsoDate(options.asOf);
  const clock = options.clock ?? { now: () => new Date(asOfDay * DAY_MS + DAY_MS / 2) };
  const secret = options.webhookSecret ?? SANDBOX_WEBHOOK_SECRET;
  const catchUpDays = options.catchUpDays ?? DEFAULT_CATCH_UP_DAYS;
  const itemIds = opaqueIdFactory(hashSeed(options.seed, 'items'));
  const items = new Map<string, SandboxItem>();
  const byAccessToken = new Map<string, SandboxItem>();
  const publicTokens = new Map<string, { institutionId: string; index: number }>();
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

    async createLinkToken({ reconnectItemId }) {
      if (reconnectItemId !== undefined) itemById(reconnectItemId);
      return { linkToken: token('link'), expiration: new Date(clock.now().getTime() + LINK_TOKEN_TTL_MS).toISOString() };
    },

    createPublicToken(request = {}) {
      const index = grantSerial;
      const institutionId = request.institutionId ?? (SANDBOX_INSTITUTIONS[index % SANDBOX_INSTITUTIONS.length] as Institution).id;
      if (findSandboxInstitution(institutionId) === undefined) throw new BankLinkError('INSTITUTION_NOT_FOUND', `No sandbox institution ${institutionId}`);
      const publicToken = token('public');
      publicTokens.set(publicToken, { institutionId, index });
      grantSerial += 1;
      return publicToken;
    },

    async exchangePublicToken(publicToken) {
      const grant = publicTokens.get(publicToken);
      if (grant === undefined) throw new BankLinkError('INVALID_PUBLIC_TOKEN', 'The public token is unknown or was already exchanged');
      publicTokens.delete(publicToken);
      const ledger = generateSandboxLedger({ seed: hashSeed(options.seed, 'item', grant.index), asOf: options.asOf, institutionId: grant.institutionId });
      const item: SandboxItem = { itemId: itemIds(grant.index), accessToken: token('access'), ledger, log: null, status: { status: 'ok' } };
      items.set(item.itemId, item);
      byAccessToken.set(item.accessToken, item);
      const accounts = ledger.history.accounts.map(({ openingBalance: _opening, ...account }): LinkAccount => account);
      return { itemId: item.itemId, accessToken: item.accessToken, institution: ledger.history.institution, accounts };
    },

    async syncTransactions({ accessToken, cursor, count }) {
      const item = itemByToken(accessToken);
      if (item.status.status === 'login_required') throw new BankLinkError('ITEM_LOGIN_REQUIRED', SANDBOX_ITEM_ERRORS.ITEM_LOGIN_REQUIRED.errorMessage);
      item.log ??= buildSyncLog(item.ledger, catchUpDays);
      const position = cursor === undefined || cursor === '' ? 0 : decodeCursor(item.itemId, cursor, item.log.length);
      return readSyncPage(item.log, item.itemId, position, count ?? DEFAULT_SYNC_COUNT);
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
      return itemByToken(accessToken).ledger.history.accounts.map(({ openingBalance: _opening, ...account }): LinkAccount => account);
    },

    verifyWebhook: (rawBody, headers, now) => verifyWebhookSignature(rawBody, headers, secret, now),
    parseWebhook: parseWebhookBody,

    fireWebhook({ itemId, code, at }) {
      const item = itemById(itemId);
      const firedAt = at ?? clock.now();
      const webhook = sandboxWebhook(item.itemId, code, firedAt);
      item.status = statusAfter(item.status, webhook);
      return { ...signWebhook(webhook, secret, firedAt), webhook };
    },

    itemHistory: (itemId) => itemById(itemId).ledger.history,
  };
}
