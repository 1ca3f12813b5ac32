import { createHmac, randomInt } from 'node:crypto';

export const WEBHOOK_SECRET_PREFIX = 'whsec_';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const SECRET_LENGTH = 32;

/** `whsec_` + 32 base62 characters from the CSPRNG (about 190 bits). */
export function generateWebhookSecret(): string {
  let secret = '';
  for (let i = 0; i < SECRET_LENGTH; i += 1) secret += BASE62[randomInt(BASE62.length)];
  return WEBHOOK_SECRET_PREFIX + secret;
}

/** `Ledgerline-Signature`: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" under the secret>`. */
export function webhookSignature(secret: string, unixSeconds: number, rawBody: string): string {
  const mac = createHmac('sha256', secret).update(`${unixSeconds}.${rawBody}`).digest('hex');
  return `t=${unixSeconds},v1=${mac}`;
}
