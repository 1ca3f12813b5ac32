import { createPublicKey, type KeyObject } from 'node:crypto';

/** A key as `/webhook_verification_key/get` answers it (a JWK plus Plaid's dates, in Unix seconds). */
export interface PlaidVerificationKey {
  readonly kid: string;
  readonly kty: string;
  readonly crv: string;
  readonly alg: string;
  readonly x: string;
  readonly y: string;
  readonly created_at: number;
  readonly expired_at: number | null;
}

/** Null: Plaid does not know the key id. Rejects when Plaid could not be asked. */
export type FetchVerificationKey = (kid: string) => Promise<PlaidVerificationKey | null>;

interface CachedKey {
  /** Null: Plaid said it has no such key, or it is not an ES256 key. */
  readonly key: KeyObject | null;
  readonly expired: boolean;
  readonly fetchedAt: number;
}

/** A known key is asked for again after a day, so an expiry Plaid sets later is seen. */
const KNOWN_KEY_RECHECK_MS = 24 * 3_600_000;
/** A key id Plaid did not know is asked for again after five minutes at the earliest. */
const UNKNOWN_KEY_RECHECK_MS = 5 * 60_000;
/** New key ids asked of Plaid per minute at most: signed-looking junk cannot make the service call Plaid at its rate. */
const NEW_KEY_FETCHES_PER_MINUTE = 10;
const MAX_CACHED_KEYS = 256;

/**
 * Plaid's webhook verification keys by key id (`kid`), fetched once and cached, as Plaid's own
 * example does: a key id not seen before is fetched, and when it is a real key (Plaid rotated
 * them) the other cached keys are fetched again so one Plaid has since expired is refused. An
 * expired key stays refused. Concurrent asks for one key id share one fetch.
 */
export class PlaidWebhookKeys {
  private readonly cache = new Map<string, CachedKey>();
  private readonly inFlight = new Map<string, Promise<CachedKey>>();
  private newKeyFetches: number[] = [];

  constructor(private readonly fetchKey: FetchVerificationKey) {}

  /** The public key to verify with, or null: unknown to Plaid, expired, not ES256, or not asked for (rate). */
  async keyFor(kid: string, now: Date): Promise<KeyObject | null> {
    const at = now.getTime();
    let entry = this.cache.get(kid);
    if (entry === undefined) {
      if (!this.mayFetchNewKey(at)) return null;
      entry = await this.load(kid, at);
      if (entry.key !== null) await this.recheckOthers(kid, at);
    } else if (!entry.expired && at - entry.fetchedAt > (entry.key === null ? UNKNOWN_KEY_RECHECK_MS : KNOWN_KEY_RECHECK_MS)) {
      entry = await this.load(kid, at);
    }
    return entry.key !== null && !entry.expired ? entry.key : null;
  }

  private mayFetchNewKey(at: number): boolean {
    this.newKeyFetches = this.newKeyFetches.filter((fetchedAt) => at - fetchedAt < 60_000);
    if (this.newKeyFetches.length >= NEW_KEY_FETCHES_PER_MINUTE) return false;
    this.newKeyFetches.push(at);
    return true;
  }

  private async recheckOthers(kid: string, at: number): Promise<void> {
    const others = [...this.cache.entries()].filter(([other, entry]) => other !== kid && entry.key !== null && !entry.expired).map(([other]) => other);
    await Promise.all(others.map((other) => this.load(other, at).catch(() => undefined)));
  }

  private load(kid: string, at: number): Promise<CachedKey> {
    const running = this.inFlight.get(kid);
    if (running) return running;
    const loading = this.fetchKey(kid)
      .then((fetched): CachedKey => ({ key: fetched === null ? null : publicKeyOf(fetched), expired: fetched?.expired_at != null, fetchedAt: at }))
      .then((entry) => {
        this.cache.delete(kid);
        this.cache.set(kid, entry);
        if (this.cache.size > MAX_CACHED_KEYS) this.cache.delete(this.cache.keys().next().value as string);
        return entry;
      })
      .finally(() => this.inFlight.delete(kid));
    this.inFlight.set(kid, loading);
    return loading;
  }
}

function publicKeyOf(jwk: PlaidVerificationKey): KeyObject | null {
  if (jwk.kty !== 'EC' || jwk.crv !== 'P-256' || jwk.alg !== 'ES256') return null;
  try {
    return createPublicKey({ key: { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y }, format: 'jwk' });
  } catch {
    return null;
  }
}
