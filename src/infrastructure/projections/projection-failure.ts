/**
 * How a projection runner tells a failure that will pass (the database or the network) from an
 * event its projector cannot apply (decision 0009). Only the latter is ever parked.
 */

/** SQLSTATE classes and codes that say nothing about the event being applied. */
const TRANSIENT_SQLSTATE_CLASSES = ['08', '53'];
const TRANSIENT_SQLSTATES = new Set(['40001', '40P01', '57014', '57P01', '57P02', '57P03']);
const TRANSIENT_SOCKET_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'ECONNABORTED', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENETDOWN', 'EAI_AGAIN']);
/** node-postgres reports a lost or unobtainable connection in words, without a code. */
const TRANSIENT_MESSAGES = [/connection terminated/i, /timeout exceeded when trying to connect/i, /is not queryable/i];

/** True when retrying the same work later can succeed: connection loss, serialization failure, deadlock, timeout, shutdown, resources. */
export function isTransientError(error: unknown, depth = 0): boolean {
  if (depth > 5 || typeof error !== 'object' || error === null) return false;
  const { code, message, cause, errors } = error as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
  if (typeof code === 'string') {
    if (TRANSIENT_SQLSTATES.has(code) || TRANSIENT_SOCKET_CODES.has(code)) return true;
    if (/^[0-9A-Z]{5}$/.test(code) && TRANSIENT_SQLSTATE_CLASSES.includes(code.slice(0, 2))) return true;
  }
  if (typeof message === 'string' && TRANSIENT_MESSAGES.some((pattern) => pattern.test(message))) return true;
  if (Array.isArray(errors) && errors.some((inner) => isTransientError(inner, depth + 1))) return true;
  return cause !== undefined && isTransientError(cause, depth + 1);
}

const MAX_ERROR_LENGTH = 2000;

/** What an operator reads about a failure: the message and the SQLSTATE, never the stack. */
export function describeFailure(error: unknown): string {
  const { code, message } = (typeof error === 'object' && error !== null ? error : {}) as { code?: unknown; message?: unknown };
  const text = typeof message === 'string' && message !== '' ? message : String(error);
  const described = typeof code === 'string' && code !== '' ? `${text} (${code})` : text;
  return printable(described).slice(0, MAX_ERROR_LENGTH);
}

/** PostgreSQL text cannot hold NUL: what the runner records about a bad event must not fail in turn. */
export function printable(text: string): string {
  return text.split('\u0000').join('\\0');
}

/** Capped exponential backoff: 100 ms, 200 ms, 400 ms … at most `capMs`. */
export function backoffMs(failures: number, capMs = 10_000): number {
  return Math.min(capMs, 100 * 2 ** Math.max(0, failures - 1));
}
