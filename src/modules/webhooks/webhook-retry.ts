/** A delivery is tried at most this many times, then marked failed. */
export const MAX_DELIVERY_ATTEMPTS = 8;

export type DeliveryOutcome = { readonly status: 'succeeded' } | { readonly status: 'failed' } | { readonly status: 'pending'; readonly retryInMs: number };

/**
 * What becomes of a delivery after its `attempts`-th try: a 2xx succeeds; otherwise it is tried
 * again after `baseMs`, then twice that, and so on (30 s, 1 min, 2 min … 32 min by default), until
 * the eighth try fails it for good.
 */
export function outcomeAfterAttempt(attempts: number, succeeded: boolean, baseMs: number): DeliveryOutcome {
  if (succeeded) return { status: 'succeeded' };
  if (attempts >= MAX_DELIVERY_ATTEMPTS) return { status: 'failed' };
  return { status: 'pending', retryInMs: baseMs * 2 ** (attempts - 1) };
}
