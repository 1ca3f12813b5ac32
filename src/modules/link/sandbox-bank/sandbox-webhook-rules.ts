import { randomUUID } from 'node:crypto';
import type { BankLinkWebhook, BankLinkWebhookCode, ItemStatus } from '../bank-link.port.js';

const DAY_MS = 86_400_000;

export const SANDBOX_ITEM_ERRORS = {
  ITEM_LOGIN_REQUIRED: { errorCode: 'ITEM_LOGIN_REQUIRED', errorMessage: 'the login details of this item have changed and a user login is required to update this information' },
  ERROR: { errorCode: 'INSTITUTION_DOWN', errorMessage: 'this institution is not currently responding to this request' },
} as const;

/**
 * The webhook the sandbox sends for a code, and the item status it leaves behind: one set of rules
 * for the in-memory sandbox and for the persistent adapter, which applies them to the status it
 * stores so every instance sees one status. Each firing is a new notification with its own id
 * (a random UUID unless one is given); a replay of it is the same body, id included.
 */
export function sandboxWebhook(itemId: string, code: BankLinkWebhookCode, firedAt: Date, webhookId: string = randomUUID()): BankLinkWebhook {
  const inAWeek = new Date(firedAt.getTime() + 7 * DAY_MS).toISOString();
  switch (code) {
    case 'SYNC_UPDATES_AVAILABLE':
      return { webhookId, code, itemId, initialUpdateComplete: true, historicalUpdateComplete: true };
    case 'ITEM_LOGIN_REQUIRED':
    case 'ERROR':
      return { webhookId, code, itemId, error: SANDBOX_ITEM_ERRORS[code] };
    case 'PENDING_DISCONNECT':
      return { webhookId, code, itemId, disconnectAt: inAWeek, reason: 'INSTITUTION_MIGRATION' };
    case 'PENDING_EXPIRATION':
      return { webhookId, code, itemId, consentExpiresAt: inAWeek };
    case 'LOGIN_REPAIRED':
    case 'NEW_ACCOUNTS_AVAILABLE':
      return { webhookId, code, itemId };
    default: {
      const unreachable: never = code;
      throw new RangeError(`Unknown webhook code ${String(unreachable)}`);
    }
  }
}

/** Expiring consent is a disconnect with a date, as far as the item's status goes. */
export function statusAfter(current: ItemStatus, webhook: BankLinkWebhook): ItemStatus {
  switch (webhook.code) {
    case 'ITEM_LOGIN_REQUIRED':
      return { status: 'login_required' };
    case 'ERROR':
      return { status: 'error', error: webhook.error };
    case 'LOGIN_REPAIRED':
      return { status: 'ok' };
    case 'PENDING_DISCONNECT':
      return { status: 'pending_disconnect', disconnectAt: webhook.disconnectAt };
    case 'PENDING_EXPIRATION':
      return { status: 'pending_disconnect', disconnectAt: webhook.consentExpiresAt };
    case 'SYNC_UPDATES_AVAILABLE':
    case 'NEW_ACCOUNTS_AVAILABLE':
      return current;
    default: {
      const unreachable: never = webhook;
      return unreachable;
    }
  }
}
