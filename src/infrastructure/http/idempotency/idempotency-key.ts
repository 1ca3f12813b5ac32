import { createHash } from 'node:crypto';

/** 1–255 printable ASCII characters (space to tilde). */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;

/** The methods a key makes safe to retry. */
export const KEYED_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** How long a request's answer is kept for its key. */
export const KEPT_FOR_MS = 24 * 60 * 60 * 1000;

/**
 * How long a claim holds without an answer. Longer than any request runs (statements time out
 * far sooner); past it, the first request is taken for dead and a repeat runs the request again.
 */
export const CLAIM_HELD_FOR_MS = 60_000;

/** The request a key was first used for: method, path with query, and body as parsed (so its spacing does not matter). */
export function requestFingerprint(method: string, url: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method} ${url}\n`)
    .update(body === undefined ? '' : JSON.stringify(body))
    .digest('base64url');
}

/** What is kept of the first request for its key. */
export interface KeptRequest {
  readonly fingerprint: string;
  /** Null while the first request is running. */
  readonly answer: KeptAnswer | null;
}

export interface KeptAnswer {
  readonly status: number;
  readonly body: string;
  readonly headers: Readonly<Record<string, string>>;
}

export type RepeatOutcome = { readonly kind: 'reused' } | { readonly kind: 'in-progress' } | { readonly kind: 'replay'; readonly answer: KeptAnswer };

/** A repeat of a key already claimed: another request under the same key, the first still running, or its answer again. */
export function repeatOutcome(kept: KeptRequest, fingerprint: string): RepeatOutcome {
  if (kept.fingerprint !== fingerprint) return { kind: 'reused' };
  if (kept.answer === null) return { kind: 'in-progress' };
  return { kind: 'replay', answer: kept.answer };
}

/** An answer worth keeping: a server failure is not the request's answer, and its repeat runs it again. */
export function keepsAnswer(status: number): boolean {
  return status < 500;
}

/** The response headers a replay repeats beside its status and body. */
export const REPLAYED_HEADERS = ['content-type', 'etag', 'location'] as const;
