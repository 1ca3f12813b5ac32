import { createHmac, timingSafeEqual } from 'node:crypto';
import type { BankLinkWebhook, UnrecognisedWebhook, WebhookHeaders } from '../bank-link.port.js';
import { headerValue, wireError, wireInstant, wireObjectOf, wireOpaqueId, wireText } from '../webhooks/webhook-body-fields.js';

/**
 * Sandbox webhooks on the wire: a Plaid-like snake_case JSON body with a `webhook_id` per
 * notification, signed with HMAC-SHA256 over `<unix seconds>.<raw body>` and sent as
 * `t=<seconds>,v1=<hex>` in the signature header.
 */
export const SANDBOX_SIGNATURE_HEADER = 'ledgerline-sandbox-signature';

/**
 * How far the signing time may be from the receiver's clock, either way: a captured delivery
 * replayed later than this is refused whatever its id, which bounds how long ids must be kept.
 */
export const WEBHOOK_SIGNATURE_TOLERANCE_SECONDS = 5 * 60;

export interface SignedWebhook {
  readonly rawBody: string;
  readonly headers: Readonly<Record<string, string>>;
}

type WireBody = Record<string, unknown>;

export function webhookWireBody(webhook: BankLinkWebhook): WireBody {
  const base = { webhook_id: webhook.webhookId, item_id: webhook.itemId, webhook_code: webhook.code, environment: 'sandbox' };
  switch (webhook.code) {
    case 'SYNC_UPDATES_AVAILABLE':
      return { webhook_type: 'TRANSACTIONS', ...base, initial_update_complete: webhook.initialUpdateComplete, historical_update_complete: webhook.historicalUpdateComplete };
    case 'ITEM_LOGIN_REQUIRED':
    case 'ERROR':
      return { webhook_type: 'ITEM', ...base, error: { error_code: webhook.error.errorCode, error_message: webhook.error.errorMessage } };
    case 'PENDING_DISCONNECT':
      return { webhook_type: 'ITEM', ...base, reason: webhook.reason, disconnect_at: webhook.disconnectAt };
    case 'PENDING_EXPIRATION':
      return { webhook_type: 'ITEM', ...base, consent_expiration_time: webhook.consentExpiresAt };
    case 'LOGIN_REPAIRED':
    case 'NEW_ACCOUNTS_AVAILABLE':
      return { webhook_type: 'ITEM', ...base };
    default: {
      const unreachable: never = webhook;
      return unreachable;
    }
  }
}

/** The key both ends of the sandbox's webhooks share: the sandbox signs with it, the receiver verifies. */
export type WebhookSecret = Buffer;

const signature = (secret: WebhookSecret, timestamp: string, rawBody: string): string =>
  createHmac('sha256', secret).update(`${timestamp}.${rawBody}`).digest('hex');

export function signWebhook(webhook: BankLinkWebhook, secret: WebhookSecret, at: Date): SignedWebhook {
  const rawBody = JSON.stringify(webhookWireBody(webhook));
  const timestamp = String(Math.floor(at.getTime() / 1000));
  return {
    rawBody,
    headers: { 'content-type': 'application/json', [SANDBOX_SIGNATURE_HEADER]: `t=${timestamp},v1=${signature(secret, timestamp, rawBody)}` },
  };
}

const SIGNATURE = /^t=(\d{1,12}),v1=([0-9a-f]{64})$/;

/** True only for a signature of exactly this body, made within the tolerance of `now` (either side). */
export function verifyWebhookSignature(rawBody: string, headers: WebhookHeaders, secret: WebhookSecret, now: Date): boolean {
  const match = SIGNATURE.exec(headerValue(headers, SANDBOX_SIGNATURE_HEADER) ?? '');
  if (match === null) return false;
  const signedAtSeconds = Number(match[1]);
  if (Math.abs(now.getTime() / 1000 - signedAtSeconds) > WEBHOOK_SIGNATURE_TOLERANCE_SECONDS) return false;
  const expected = Buffer.from(signature(secret, match[1] as string, rawBody), 'hex');
  return timingSafeEqual(expected, Buffer.from(match[2] as string, 'hex'));
}

/**
 * A body parsed into what the port acts on. A known code without its id, item, error or date is
 * unrecognised rather than half-understood: the receiver ignores it (and logs it).
 */
export function parseWebhookBody(rawBody: string): BankLinkWebhook | UnrecognisedWebhook {
  const wire = wireObjectOf(rawBody);
  if (wire === null) return { code: 'UNRECOGNISED', rawCode: null, itemId: null, webhookId: null };
  const rawCode = wireText(wire.webhook_code);
  const itemId = wireOpaqueId(wire.item_id);
  const webhookId = wireOpaqueId(wire.webhook_id);
  const unrecognised: UnrecognisedWebhook = { code: 'UNRECOGNISED', rawCode, itemId, webhookId };
  if (itemId === null || webhookId === null) return unrecognised;
  switch (rawCode) {
    case 'SYNC_UPDATES_AVAILABLE':
      return { webhookId, code: rawCode, itemId, initialUpdateComplete: wire.initial_update_complete === true, historicalUpdateComplete: wire.historical_update_complete === true };
    case 'ITEM_LOGIN_REQUIRED':
    case 'ERROR': {
      const error = wireError(wire);
      return error === null ? unrecognised : { webhookId, code: rawCode, itemId, error };
    }
    case 'PENDING_DISCONNECT': {
      const disconnectAt = wireInstant(wire.disconnect_at);
      const reason = wire.reason === 'INSTITUTION_MIGRATION' ? 'INSTITUTION_MIGRATION' : 'INSTITUTION_TOKEN_EXPIRATION';
      return disconnectAt === null ? unrecognised : { webhookId, code: rawCode, itemId, disconnectAt, reason };
    }
    case 'PENDING_EXPIRATION': {
      const consentExpiresAt = wireInstant(wire.consent_expiration_time);
      return consentExpiresAt === null ? unrecognised : { webhookId, code: rawCode, itemId, consentExpiresAt };
    }
    case 'LOGIN_REPAIRED':
    case 'NEW_ACCOUNTS_AVAILABLE':
      return { webhookId, code: rawCode, itemId };
    default:
      return unrecognised;
  }
}
