import type { Logger } from 'pino';
import type { Clock } from '../../core/clock.js';

/** Counts hits per key; a key is one bucket in one window, so it can expire with the window. */
export interface RateLimitStore {
  readonly kind: 'memory' | 'redis';
  /** Adds one hit and returns the count so far; the key may be forgotten after `ttlMs`. */
  hit(key: string, ttlMs: number, now: Date): Promise<number>;
  close(): Promise<void>;
}

export type RateLimitDecision = { readonly allowed: true } | { readonly allowed: false; readonly retryAfterSeconds: number };

const WINDOW_MS = 60_000;
const STORE_FAILURE_LOG_INTERVAL_MS = 60_000;

/**
 * A fixed one-minute window per bucket. A store that fails lets requests through (logged, at
 * most once a minute): a Redis outage must not take the API down with it.
 */
export class RateLimiter {
  private lastFailureLoggedAt = 0;

  constructor(
    private readonly store: RateLimitStore,
    private readonly limitPerMinute: number,
    private readonly clock: Clock,
    private readonly log: Logger,
  ) {}

  get storeKind(): RateLimitStore['kind'] {
    return this.store.kind;
  }

  async consume(bucket: string): Promise<RateLimitDecision> {
    const now = this.clock.now();
    const windowStart = Math.floor(now.getTime() / WINDOW_MS) * WINDOW_MS;
    let count: number;
    try {
      count = await this.store.hit(`${bucket}:${windowStart}`, WINDOW_MS * 2, now);
    } catch (error) {
      if (now.getTime() - this.lastFailureLoggedAt >= STORE_FAILURE_LOG_INTERVAL_MS) {
        this.lastFailureLoggedAt = now.getTime();
        this.log.warn({ err: error, store: this.store.kind }, 'rate-limit store unavailable; letting requests through');
      }
      return { allowed: true };
    }
    if (count <= this.limitPerMinute) return { allowed: true };
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((windowStart + WINDOW_MS - now.getTime()) / 1000)) };
  }

  /** Nest calls this when the application closes. */
  async onApplicationShutdown(): Promise<void> {
    await this.store.close();
  }
}

/** One process's counts: right for a single instance; several instances need the Redis store. */
export class MemoryRateLimitStore implements RateLimitStore {
  readonly kind = 'memory';
  private readonly counts = new Map<string, { count: number; expiresAt: number }>();
  private nextSweepAt = 0;

  async hit(key: string, ttlMs: number, now: Date): Promise<number> {
    const at = now.getTime();
    if (at >= this.nextSweepAt) this.sweep(at, ttlMs);
    const entry = this.counts.get(key);
    if (!entry || entry.expiresAt <= at) {
      this.counts.set(key, { count: 1, expiresAt: at + ttlMs });
      return 1;
    }
    entry.count += 1;
    return entry.count;
  }

  async close(): Promise<void> {
    this.counts.clear();
  }

  private sweep(at: number, ttlMs: number): void {
    for (const [key, entry] of this.counts) if (entry.expiresAt <= at) this.counts.delete(key);
    this.nextSweepAt = at + ttlMs;
  }
}
