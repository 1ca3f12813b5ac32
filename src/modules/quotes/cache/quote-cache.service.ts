import type { Logger } from 'pino';
import type { QuoteLookup } from '../quote.port.js';
import { MemoryQuoteCacheStore, type QuoteCacheStore } from './quote-cache.js';

const OUTAGE_LOG_INTERVAL_MS = 60_000;

/**
 * The quote cache: the shared store (Redis) when there is one, this process's memory while it
 * cannot answer or when there is none. A store failure is never the caller's error: a lookup then
 * reads and writes in process, and entries written there during an outage still answer (until
 * their TTL) once Redis is back, so the provider is not asked twice for them.
 */
export class QuoteCache {
  readonly memory: MemoryQuoteCacheStore;
  private lastOutageLoggedAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly shared: QuoteCacheStore | null,
    private readonly log: Logger,
    memory?: MemoryQuoteCacheStore,
  ) {
    this.memory = memory ?? new MemoryQuoteCacheStore();
  }

  get kind(): QuoteCacheStore['kind'] {
    return this.shared?.kind ?? 'memory';
  }

  async get(symbol: string): Promise<QuoteLookup | undefined> {
    if (this.shared === null) return this.memory.peek(symbol);
    try {
      return (await this.shared.get(symbol)) ?? this.memory.peek(symbol);
    } catch (error) {
      this.outage(error);
      return this.memory.peek(symbol);
    }
  }

  async set(symbol: string, lookup: QuoteLookup, ttlMs: number): Promise<void> {
    if (this.shared === null) return this.memory.set(symbol, lookup, ttlMs);
    try {
      await this.shared.set(symbol, lookup, ttlMs);
    } catch (error) {
      this.outage(error);
      await this.memory.set(symbol, lookup, ttlMs);
    }
  }

  async close(): Promise<void> {
    await Promise.all([this.shared?.close(), this.memory.close()]);
  }

  private outage(error: unknown): void {
    const now = Date.now();
    if (now - this.lastOutageLoggedAt < OUTAGE_LOG_INTERVAL_MS) return;
    this.lastOutageLoggedAt = now;
    this.log.warn({ err: error, store: this.shared?.kind }, 'quote cache store unavailable; caching quotes in this process until it answers');
  }
}
