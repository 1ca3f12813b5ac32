import type { Principal } from '../../../infrastructure/http/authenticator.port.js';

export interface ApiKeyCacheLimits {
  /** Least recently used entries go first past this many. */
  readonly maxEntries: number;
  /** A safety net only: invalidation by notification is what keeps entries true. */
  readonly ttlMs: number;
}

interface Entry {
  readonly principal: Principal;
  readonly expiresAt: number;
}

/**
 * Verified API-key principals by the key's SHA-256 (the secret itself is never kept), in least
 * recently used order. A lookup that misses reads the database; its answer may only be stored if
 * nothing was forgotten meanwhile — a revocation that lands while the read is in flight would
 * otherwise be undone by the read's older answer. `generation` counts forgettings for that check.
 */
export class ApiKeyCache {
  private readonly entries = new Map<string, Entry>();
  private generationCount = 0;

  constructor(
    private readonly limits: ApiKeyCacheLimits,
    private readonly monotonicNow: () => number,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /** Take it before reading the database; hand it to `remember` with the answer. */
  get generation(): number {
    return this.generationCount;
  }

  recall(keyHash: string): Principal | null {
    const entry = this.entries.get(keyHash);
    if (!entry) return null;
    this.entries.delete(keyHash);
    if (entry.expiresAt <= this.monotonicNow()) return null;
    this.entries.set(keyHash, entry);
    return entry.principal;
  }

  /** Stores the answer of a read begun in `generation`; refused if anything was forgotten since. */
  remember(keyHash: string, principal: Principal, generation: number): boolean {
    if (generation !== this.generationCount || this.limits.maxEntries === 0) return false;
    this.entries.delete(keyHash);
    this.entries.set(keyHash, { principal, expiresAt: this.monotonicNow() + this.limits.ttlMs });
    while (this.entries.size > this.limits.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    return true;
  }

  forgetKey(apiKeyId: string): void {
    this.forgetWhere((principal) => principal.credential.kind === 'apiKey' && principal.credential.apiKeyId === apiKeyId);
  }

  forgetUser(userId: string): void {
    this.forgetWhere((principal) => principal.user.id === userId);
  }

  forgetAll(): void {
    this.generationCount += 1;
    this.entries.clear();
  }

  // A scan: forgetting is rare (a revocation, a user changed) and the cache is small.
  private forgetWhere(matches: (principal: Principal) => boolean): void {
    this.generationCount += 1;
    for (const [keyHash, entry] of this.entries) if (matches(entry.principal)) this.entries.delete(keyHash);
  }
}
