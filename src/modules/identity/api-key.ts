import { createHash, randomInt } from 'node:crypto';
import type { Scope } from '../../infrastructure/http/authenticator.port.js';

export const API_KEY_PREFIX = 'pf_live_';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const SECRET_LENGTH = 40;
const API_KEY_FORMAT = new RegExp(`^${API_KEY_PREFIX}[0-9A-Za-z]{${SECRET_LENGTH}}$`);

/**
 * `read` and `write` open the API's operations; `keys` opens key management (issuing, listing and
 * revoking API keys), so that a key handed to a script cannot mint more keys that outlive it.
 */
export const SCOPES = ['read', 'write', 'keys'] as const satisfies readonly Scope[];
export type { Scope };
/** What a key gets when no scopes are asked for: everything but key management. */
export const DEFAULT_API_KEY_SCOPES: readonly Scope[] = ['read', 'write'];
export const KEY_MANAGEMENT_SCOPE: Scope = 'keys';

/** `pf_live_` + 40 base62 characters from the CSPRNG (about 238 bits). */
export function generateApiKey(): string {
  let secret = '';
  for (let i = 0; i < SECRET_LENGTH; i += 1) secret += BASE62[randomInt(BASE62.length)];
  return API_KEY_PREFIX + secret;
}

export function isApiKeyFormat(candidate: string): boolean {
  return API_KEY_FORMAT.test(candidate);
}

/** Keys are high-entropy, so a plain SHA-256 is a safe lookup hash; the key itself is never stored. */
export function hashApiKey(key: string): Buffer {
  return createHash('sha256').update(key).digest();
}

/** What may be shown of a key after creation: enough to recognise it, too little to use it. */
export function displayPrefix(key: string): string {
  return key.slice(0, API_KEY_PREFIX.length + 4);
}

export function parseScopes(text: string): Scope[] {
  const scopes = text.split(',').map((scope) => scope.trim()).filter(Boolean);
  for (const scope of scopes) {
    if (!(SCOPES as readonly string[]).includes(scope)) throw new Error(`Unknown scope "${scope}": use ${SCOPES.join(', ')}`);
  }
  if (scopes.length === 0) throw new Error(`At least one scope is needed: ${SCOPES.join(', ')}`);
  return [...new Set(scopes)] as Scope[];
}
