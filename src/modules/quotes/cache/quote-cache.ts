import type { Quote, QuoteLookup } from '../quote.port.js';

/**
 * Where looked-up quotes wait out their TTL, keyed by upper-case symbol. A "not found" is cached
 * too, so an unknown symbol asked again and again reaches the provider once per TTL.
 */
export interface QuoteCacheStore {
  readonly kind: 'memory' | 'redis';
  /** The cached lookup, or undefined on a miss. Rejects when the store cannot answer. */
  get(symbol: string): Promise<QuoteLookup | undefined>;
  set(symbol: string, lookup: QuoteLookup, ttlMs: number): Promise<void>;
  close(): Promise<void>;
}

/** At most this many symbols are held in process; the oldest entries make room for new ones. */
export const MEMORY_CACHE_CAPACITY = 10_000;

/** One process's cache: right alone, and the fallback of the Redis store while Redis is away. */
export class MemoryQuoteCacheStore implements QuoteCacheStore {
  readonly kind = 'memory';
  // A Map iterates in insertion order, and set() re-inserts: the first entry is the oldest write.
  private readonly entries = new Map<string, { lookup: QuoteLookup; expiresAt: number }>();

  constructor(
    private readonly now: () => number = Date.now,
    private readonly capacity = MEMORY_CACHE_CAPACITY,
  ) {}

  async get(symbol: string): Promise<QuoteLookup | undefined> {
    return this.peek(symbol);
  }

  /** The same answer as get(), without waiting a tick. */
  peek(symbol: string): QuoteLookup | undefined {
    const entry = this.entries.get(symbol);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.entries.delete(symbol);
      return undefined;
    }
    return entry.lookup;
  }

  async set(symbol: string, lookup: QuoteLookup, ttlMs: number): Promise<void> {
    this.entries.delete(symbol);
    this.entries.set(symbol, { lookup, expiresAt: this.now() + ttlMs });
    while (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as string);
  }

  get size(): number {
    return this.entries.size;
  }

  async close(): Promise<void> {
    this.entries.clear();
  }
}

/** A lookup as a cache holds it outside the process. */
export function encodeLookup(lookup: QuoteLookup): string {
  return JSON.stringify(lookup.found ? { found: true, quote: lookup.quote } : { found: false });
}

const QUOTE_TEXT_FIELDS = ['symbol', 'name', 'price', 'currency', 'change', 'changePercent', 'previousClose', 'open', 'dayHigh', 'dayLow', 'asOf'] as const;

/**
 * Back from the cache's text; anything that is not a lookup this code wrote (another version's
 * shape, a corrupt value) is a miss, so the provider is asked rather than a broken quote served.
 */
export function decodeLookup(symbol: string, text: string): QuoteLookup | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { found, quote } = value as { found?: unknown; quote?: unknown };
  if (found === false) return { found: false, symbol };
  if (found !== true || typeof quote !== 'object' || quote === null) return undefined;
  const fields = quote as Record<string, unknown>;
  if (!QUOTE_TEXT_FIELDS.every((field) => typeof fields[field] === 'string')) return undefined;
  if (typeof fields.volume !== 'number' || !Number.isFinite(fields.volume)) return undefined;
  if (fields.symbol !== symbol) return undefined;
  const copy = Object.fromEntries([...QUOTE_TEXT_FIELDS, 'volume'].map((field) => [field, fields[field]])) as unknown as Quote;
  return { found: true, quote: copy };
}
