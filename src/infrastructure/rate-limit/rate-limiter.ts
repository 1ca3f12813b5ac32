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
 * A fixed one-minute window per bucket. When the store fails (Redis unreachable or silent), the
 * same windows are counted in this process until it answers again: a Redis outage neither takes
 * the API down nor lifts the limit. Each instance then enforces the limit on its own share.
 */
export class RateLimiter {
  private readonly fallback = new MemoryRateLimitStore();
  private countingInProcessSince: number | null = null;
  private lastFailureLoggedAt = Number.NEGATIVE_INFINITY;

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
    const key = `${bucket}:${windowStart}`;
    const count = await this.count(key, now);
    if (count <= this.limitPerMinute) return { allowed: true };
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((windowStart + WINDOW_MS - now.getTime()) / 1000)) };
  }

  /** Nest calls this when the application closes. */
  async onApplicationShutdown(): Promise<void> {
    await Promise.all([this.store.close(), this.fallback.close()]);
  }

  private async count(key: string, now: Date): Promise<number> {
    try {
      // Hits this process counted during an outage in the same window still count once the store is back.
      const count = (await this.store.hit(key, WINDOW_MS * 2, now)) + this.fallback.peek(key, now);
      if (this.countingInProcessSince !== null) {
        this.log.info({ store: this.store.kind, outageMs: now.getTime() - this.countingInProcessSince }, 'rate-limit store answers again; counting there');
        this.countingInProcessSince = null;
      }
      return count;
    } catch (error) {
      if (this.countingInProcessSince === null) this.countingInProcessSince = now.getTime();
      // Logged when the outage starts, and at most once a minute while it lasts.
      if (now.getTime() - this.lastFailureLoggedAt >= STORE_FAILURE_LOG_INTERVAL_MS) {
        this.lastFailureLoggedAt = now.getTime();
        this.log.warn({ err: error, store: this.store.kind }, 'rate-limit store unavailable; counting in this process until it answers');
      }
      return this.fallback.hit(key, WINDOW_MS * 2, now);
    }
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

  /** The count so far, without adding a hit. */
  peek(key: string, now: Date): number {
    const entry = this.counts.get(key);
    return entry && entry.expiresAt > now.getTime() ? entry.count : 0;
  }

  async close(): Promise<void> {
    this.counts.clear();
  }

  private sweep(at: number, ttlMs: number): void {
    for (const [key, entry] of this.counts) if (entry.expiresAt <= at) this.counts.delete(key);
    this.nextSweepAt = at + ttlMs;
  }
}
