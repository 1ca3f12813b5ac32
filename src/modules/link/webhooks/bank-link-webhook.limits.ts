import { isStorableText, UNSTORABLE_TEXT_MESSAGE } from '../../../infrastructure/http/validators.js';
import type { BankLinkWebhook, UnrecognisedWebhook } from '../bank-link.port.js';

/** The longest webhook code, error code and error message the service takes in (characters). */
export const WEBHOOK_CODE_MAX_LENGTH = 64;
export const WEBHOOK_ERROR_CODE_MAX_LENGTH = 128;
export const WEBHOOK_ERROR_MESSAGE_MAX_LENGTH = 1000;

/** Characters as the rest of the API counts them: a surrogate pair is one. */
const characters = (text: string): number => text.length - (text.match(/[\ud800-\udbff][\udc00-\udfff]/g)?.length ?? 0);

/**
 * Why a correctly signed webhook is refused (a 400, nothing stored), or null when it can be taken
 * in: text PostgreSQL cannot hold (NUL, a lone surrogate — JSON writes both as valid `\u` escapes)
 * anywhere in the body, keys included, or a code, error code or error message over its bound.
 * Events and the received-webhook table keep these strings for ever, so they are bounded here.
 */
export function unacceptableWebhook(rawBody: string, webhook: BankLinkWebhook | UnrecognisedWebhook): string | null {
  if (!everyStringStorable(rawBody)) return `A string in the webhook body ${UNSTORABLE_TEXT_MESSAGE}.`;
  const code = webhook.code === 'UNRECOGNISED' ? webhook.rawCode : webhook.code;
  if (code !== null && characters(code) > WEBHOOK_CODE_MAX_LENGTH) return `The webhook code is longer than ${WEBHOOK_CODE_MAX_LENGTH} characters.`;
  if (webhook.code === 'ITEM_LOGIN_REQUIRED' || webhook.code === 'ERROR') {
    if (characters(webhook.error.errorCode) > WEBHOOK_ERROR_CODE_MAX_LENGTH) return `The error code is longer than ${WEBHOOK_ERROR_CODE_MAX_LENGTH} characters.`;
    if (characters(webhook.error.errorMessage) > WEBHOOK_ERROR_MESSAGE_MAX_LENGTH) return `The error message is longer than ${WEBHOOK_ERROR_MESSAGE_MAX_LENGTH} characters.`;
  }
  return null;
}

/** Walks the parsed body without recursion (the edge already bounded its depth and size); not JSON has no strings to refuse. */
function everyStringStorable(rawBody: string): boolean {
  let root: unknown;
  try {
    root = JSON.parse(rawBody);
  } catch {
    return true;
  }
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node === 'string') {
      if (!isStorableText(node)) return false;
    } else if (Array.isArray(node)) {
      stack.push(...node);
    } else if (node !== null && typeof node === 'object') {
      for (const [key, value] of Object.entries(node)) {
        if (!isStorableText(key)) return false;
        stack.push(value);
      }
    }
  }
  return true;
}
