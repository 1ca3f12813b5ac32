import type { RedisOptions } from 'ioredis';

/** A command that has not answered by then fails, rather than holding its caller. */
export const REDIS_COMMAND_TIMEOUT_MS = 1000;
export const REDIS_CONNECT_TIMEOUT_MS = 2000;
const RECONNECT_BASE_DELAY_MS = 100;
const RECONNECT_MAX_DELAY_MS = 2000;

/**
 * Reconnect for ever, backing off from 100 ms to at most 2 s: an outage costs at most 2 s of
 * extra wait once Redis is back, and a dead Redis sees one connection attempt per 2 s per client.
 */
export function reconnectDelayMs(attempt: number): number {
  return Math.min(RECONNECT_BASE_DELAY_MS * 2 ** Math.max(0, attempt - 1), RECONNECT_MAX_DELAY_MS);
}

/**
 * For calls a request or a health probe waits on: no offline queue (while Redis is away a call
 * fails at once instead of waiting for the reconnect), no retry of a call the connection dropped,
 * and a command timeout for a Redis that accepts the connection but does not answer.
 */
export function failFastRedisOptions(): RedisOptions {
  return {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    connectTimeout: REDIS_CONNECT_TIMEOUT_MS,
    retryStrategy: reconnectDelayMs,
  };
}

/**
 * For BullMQ's worker, whose connections wait in blocking commands (BZPOPMIN for seconds): those
 * must neither time out nor give up, so only the connect timeout and the capped backoff apply.
 */
export function workerRedisOptions(): { maxRetriesPerRequest: null; connectTimeout: number; retryStrategy: (attempt: number) => number } {
  return { maxRetriesPerRequest: null, connectTimeout: REDIS_CONNECT_TIMEOUT_MS, retryStrategy: reconnectDelayMs };
}

const CONNECTION_ERROR_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);

/** Redis is away (or silent), as opposed to a command Redis refused. */
export function isRedisConnectionError(error: unknown): boolean {
  // Duck-typed: socket errors may come from another realm (a test VM), where `instanceof Error` is false.
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && CONNECTION_ERROR_CODES.has(code)) return true;
  return typeof message === 'string' && /Connection is closed|Command timed out|Stream isn't writeable|enableOfflineQueue|Reached the max retries|connect ETIMEDOUT|Redis is unavailable/i.test(message);
}
