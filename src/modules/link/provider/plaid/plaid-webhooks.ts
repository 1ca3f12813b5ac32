import { createHash, timingSafeEqual, verify } from 'node:crypto';
import type { BankLinkWebhook, UnrecognisedWebhook, WebhookHeaders } from '../../bank-link.port.js';
import { headerValue, type WireBody, wireError, wireInstant, wireObjectOf, wireOpaqueId, wireText } from '../../webhooks/webhook-body-fields.js';
import type { PlaidWebhookKeys } from './plaid-webhook-keys.js';

/** The header Plaid signs every webhook in: a JWT (ES256) over the SHA-256 of the raw body. */
export const PLAID_VERIFICATION_HEADER = 'plaid-verification';
/** Plaid's rule: a webhook whose JWT was issued more than five minutes ago is refused (and one from further ahead). */
export const PLAID_WEBHOOK_MAX_AGE_SECONDS = 5 * 60;

interface DecodedJwt {
  readonly kid: string;
  readonly iat: number;
  readonly bodySha256: string;
  readonly signingInput: string;
  readonly signature: Buffer;
}

const BASE64URL = /^[A-Za-z0-9_-]+$/;
const SHA256_HEX = /^[0-9a-f]{64}$/;

function jsonOf(part: string): WireBody | null {
  if (!BASE64URL.test(part)) return null;
  return wireObjectOf(Buffer.from(part, 'base64url').toString('utf8'));
}

/** The JWT's parts, or null unless it is one Plaid could have signed: ES256, a key id, `iat` and the body's hash. */
function decodePlaidJwt(token: string | undefined): DecodedJwt | null {
  if (token === undefined || token.length > 4096) return null;
  const parts = token.split('.');
  if (parts.length !== 3) return null;
  const [headerPart, payloadPart, signaturePart] = parts as [string, string, string];
  const header = jsonOf(headerPart);
  const payload = jsonOf(payloadPart);
  if (header === null || payload === null || header.alg !== 'ES256' || !BASE64URL.test(signaturePart)) return null;
  const kid = wireOpaqueId(header.kid);
  const iat = payload.iat;
  const bodySha256 = payload.request_body_sha256;
  if (kid === null || typeof iat !== 'number' || !Number.isFinite(iat) || typeof bodySha256 !== 'string' || !SHA256_HEX.test(bodySha256)) return null;
  return { kid, iat, bodySha256, signingInput: `${headerPart}.${payloadPart}`, signature: Buffer.from(signaturePart, 'base64url') };
}

/**
 * Plaid's verification, step by step as it documents it: the `Plaid-Verification` JWT must be
 * ES256, issued within five minutes of `now`, name the SHA-256 of exactly this body (compared in
 * constant time), and be signed by the key its `kid` names (fetched from Plaid and cached). The
 * cheap checks come first, so a stale or mismatched delivery never makes the service call Plaid.
 */
export async function verifyPlaidWebhook(rawBody: string, headers: WebhookHeaders, now: Date, keys: PlaidWebhookKeys): Promise<boolean> {
  const jwt = decodePlaidJwt(headerValue(headers, PLAID_VERIFICATION_HEADER));
  if (jwt === null) return false;
  if (Math.abs(now.getTime() / 1000 - jwt.iat) > PLAID_WEBHOOK_MAX_AGE_SECONDS) return false;
  const bodySha256 = createHash('sha256').update(rawBody, 'utf8').digest();
  if (!timingSafeEqual(bodySha256, Buffer.from(jwt.bodySha256, 'hex'))) return false;
  // ES256 signs with r ‖ s, 32 bytes each (JWS), not DER.
  if (jwt.signature.length !== 64) return false;
  let key;
  try {
    key = await keys.keyFor(jwt.kid, now);
  } catch {
    // Plaid could not be asked: refused now (401), delivered again by Plaid later.
    return false;
  }
  if (key === null) return false;
  return verify('sha256', Buffer.from(jwt.signingInput), { key, dsaEncoding: 'ieee-p1363' }, jwt.signature);
}

/**
 * Plaid's bodies carry no id of their own: a delivery is named by the digest of the JWT that
 * signed it, so the very same delivery replayed is recognised. Plaid signs a retry anew, so a
 * retry is applied again, which every effect tolerates (decision 0013).
 */
export function plaidWebhookIdOf(headers: WebhookHeaders): string | null {
  const jwt = headerValue(headers, PLAID_VERIFICATION_HEADER);
  return jwt === undefined ? null : `plaid-jwt-${createHash('sha256').update(jwt).digest('hex')}`;
}

/**
 * Plaid's item and transactions webhooks in the port's terms. Plaid sends a login required as an
 * `ERROR` whose error code is ITEM_LOGIN_REQUIRED; a user's revoked permission is an error the
 * user must link again to clear. Codes the service does not act on (the legacy transactions
 * updates, webhook acknowledgements, …) and a known code without what it needs are unrecognised.
 */
export function parsePlaidWebhook(rawBody: string, headers: WebhookHeaders): BankLinkWebhook | UnrecognisedWebhook {
  const wire = wireObjectOf(rawBody);
  const webhookId = plaidWebhookIdOf(headers);
  if (wire === null) return { code: 'UNRECOGNISED', rawCode: null, itemId: null, webhookId };
  const type = wireText(wire.webhook_type);
  const rawCode = wireText(wire.webhook_code);
  const itemId = wireOpaqueId(wire.item_id);
  const unrecognised: UnrecognisedWebhook = { code: 'UNRECOGNISED', rawCode, itemId, webhookId };
  if (itemId === null || webhookId === null) return unrecognised;
  if (type === 'TRANSACTIONS') {
    if (rawCode !== 'SYNC_UPDATES_AVAILABLE') return unrecognised;
    return { webhookId, code: rawCode, itemId, initialUpdateComplete: wire.initial_update_complete === true, historicalUpdateComplete: wire.historical_update_complete === true };
  }
  if (type !== 'ITEM') return unrecognised;
  switch (rawCode) {
    case 'ERROR':
    case 'USER_PERMISSION_REVOKED': {
      const error = wireError(wire);
      if (error === null) return unrecognised;
      return error.errorCode === 'ITEM_LOGIN_REQUIRED' ? { webhookId, code: 'ITEM_LOGIN_REQUIRED', itemId, error } : { webhookId, code: 'ERROR', itemId, error };
    }
    case 'PENDING_DISCONNECT': {
      const disconnectAt = wireInstant(wire.disconnect_time);
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
