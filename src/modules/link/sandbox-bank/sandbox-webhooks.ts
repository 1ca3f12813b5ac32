import { createHmac, timingSafeEqual } from 'node:crypto';
import type { BankLinkWebhook, UnrecognisedWebhook, WebhookHeaders } from '../bank-link.port.js';

/**
 * Sandbox webhooks on the wire: a Plaid-like snake_case JSON body, signed with HMAC-SHA256 over
 * `<unix seconds>.<raw body>` and sent as `t=<seconds>,v1=<hex>` in the signature header.
 */
export const SANDBOX_SIGNATURE_HEADER = 'ledgerline-sandbox-signature';

export interface SignedWebhook {
  readonly rawBody: string;
  readonly headers: Readonly<Record<string, string>>;
}

type WireBody = Record<string, unknown>;

export function webhookWireBody(webhook: BankLinkWebhook): WireBody {
  const base = { item_id: webhook.itemId, webhook_code: webhook.code, environment: 'sandbox' };
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

const signature = (secret: string, timestamp: string, rawBody: string): string =>
  createHmac('sha256', secret).update(`${timestamp}.${rawBody}`).digest('hex');

export function signWebhook(webhook: BankLinkWebhook, secret: string, at: Date): SignedWebhook {
  const rawBody = JSON.stringify(webhookWireBody(webhook));
  const timestamp = String(Math.floor(at.getTime() / 1000));
  return {
    rawBody,
    headers: { 'content-type': 'application/json', [SANDBOX_SIGNATURE_HEADER]: `t=${timestamp},v1=${signature(secret, timestamp, rawBody)}` },
  };
}

function headerValue(headers: WebhookHeaders, name: string): string | undefined {
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== name) continue;
    return typeof value === 'string' ? value : value?.[0];
  }
  return undefined;
}

const SIGNATURE = /^t=(\d{1,12}),v1=([0-9a-f]{64})$/;

export function verifyWebhookSignature(rawBody: string, headers: WebhookHeaders, secret: string, _now: Date): boolean {
  const match = SIGNATURE.exec(headerValue(headers, SANDBOX_SIGNATURE_HEADER) ?? '');
  if (match === null) return false;
  const expected = Buffer.from(signature(secret, match[1] as string, rawBody), 'hex');
  return timingSafeEqual(expected, Buffer.from(match[2] as string, 'hex'));
}

const text = (value: unknown): string | null => (typeof value === 'string' && value.length > 0 ? value : null);

function wireError(body: WireBody): { errorCode: string; errorMessage: string } | null {
  const error = body.error;
  if (typeof error !== 'object' || error === null) return null;
  const errorCode = text((error as WireBody).error_code);
  return errorCode === null ? null : { errorCode, errorMessage: text((error as WireBody).error_message) ?? '' };
}

export function parseWebhookBody(rawBody: string): BankLinkWebhook | UnrecognisedWebhook {
  let body: unknown;
  try {
    body = JSON.parse(rawBody);
  } catch {
    return { code: 'UNRECOGNISED', rawCode: null, itemId: null };
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return { code: 'UNRECOGNISED', rawCode: null, itemId: null };
  const wire = body as WireBody;
  const rawCode = text(wire.webhook_code);
  const itemId = text(wire.item_id);
  const unrecognised: UnrecognisedWebhook = { code: 'UNRECOGNISED', rawCode, itemId };
  if (itemId === null) return unrecognised;
  switch (rawCode) {
    case 'SYNC_UPDATES_AVAILABLE':
      return { code: rawCode, itemId, initialUpdateComplete: wire.initial_update_complete === true, historicalUpdateComplete: wire.historical_update_complete === true };
    case 'ITEM_LOGIN_REQUIRED':
    case 'ERROR': {
      const error = wireError(wire);
      return error === null ? unrecognised : { code: rawCode, itemId, error };
    }
    case 'PENDING_DISCONNECT': {
      const disconnectAt = text(wire.disconnect_at);
      const reason = wire.reason === 'INSTITUTION_MIGRATION' ? 'INSTITUTION_MIGRATION' : 'INSTITUTION_TOKEN_EXPIRATION';
      return disconnectAt === null ? unrecognised : { code: rawCode, itemId, disconnectAt, reason };
    }
    case 'PENDING_EXPIRATION': {
      const consentExpiresAt = text(wire.consent_expiration_time);
      return consentExpiresAt === null ? unrecognised : { code: rawCode, itemId, consentExpiresAt };
    }
    case 'LOGIN_REPAIRED':
    case 'NEW_ACCOUNTS_AVAILABLE':
      return { code: rawCode, itemId };
    default:
      return unrecognised;
  }
}
