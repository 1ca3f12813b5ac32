import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { type Kysely, sql } from 'kysely';
import type pg from 'pg';
import type { Logger } from 'pino';
import type { Database } from '../../../infrastructure/database/schema.js';
import { AppendSignal } from '../../../infrastructure/event-store/append-signal.js';

/** Migration 0015's triggers notify here; so does every instance's liveness ping. */
export const API_KEY_INVALIDATION_CHANNEL = 'ledgerline_api_key_invalidations';

/** `xid`: the transaction that made the change (migration 0016), which instances acknowledge. */
export type Invalidation = ({ readonly kind: 'key'; readonly apiKeyId: string } | { readonly kind: 'user'; readonly userId: string } | { readonly kind: 'all' }) & { readonly xid?: string };

type Notification =
  | Invalidation
  | { readonly kind: 'ping'; readonly instance: string; readonly sequence: number }
  | { readonly kind: 'ack'; readonly instance: string; readonly xid: string };

const isNumber = (value: string | undefined): value is string => value !== undefined && /^\d+$/.test(value);
const withXid = (xid: string | undefined) => (xid === undefined ? {} : { xid });

/**
 * `key <id> <user id> [xid]`, `user <id> [xid]`, `all [xid]`, `ping <instance> <n>`,
 * `ack <instance> <xid>`; anything else is not ours (null).
 */
export function parseNotification(payload: string): Notification | null {
  const [kind, first, second, third, ...rest] = payload.split(' ');
  if (rest.length > 0) return null;
  if (kind === 'key' && first && second && (third === undefined || isNumber(third))) return { kind, apiKeyId: first, ...withXid(third) };
  if (kind === 'user' && first && (second === undefined || isNumber(second)) && third === undefined) return { kind, userId: first, ...withXid(second) };
  if (kind === 'all' && (first === undefined || isNumber(first)) && second === undefined) return { kind, ...withXid(first) };
  if (kind === 'ping' && first && isNumber(second) && third === undefined) return { kind, instance: first, sequence: Number(second) };
  if (kind === 'ack' && first && isNumber(second) && third === undefined) return { kind, instance: first, xid: second };
  return null;
}

/** Invalidations whose acknowledgements are kept (the oldest go first). */
const ACKS_KEPT = 1_000;
/** Slack on the clocks' granularity and a notification's handling when bounding a wait by staleness. */
const STALENESS_MARGIN_MS = 100;

export interface InvalidationTiming {
  /** How often this instance sends itself a ping through PostgreSQL. */
  readonly pingIntervalMs: number;
  /** Not trusted once the last ping heard back was sent longer ago than this. */
  readonly staleAfterMs: number;
  /** First delay before listening again after the LISTEN connection dropped (then doubling). */
  readonly relistenAfterMs?: number;
}

export const DEFAULT_INVALIDATION_TIMING: InvalidationTiming = { pingIntervalMs: 1_000, staleAfterMs: 3_000 };

/**
 * Hears what turns cached API-key principals stale, on a LISTEN connection of its own, and says
 * whether it can be trusted right now. Trusted means: the connection is up and a ping this
 * instance sent at most `staleAfterMs` ago has come back through it. PostgreSQL delivers
 * notifications in commit order, so every invalidation committed before that ping has been heard
 * — which also catches a connection that died without a word (no FIN, keepalive not yet fired),
 * or a pooler that swallows notifications. A lost and re-established connection counts as
 * "everything may have changed" and is untrusted until a new ping returns.
 */
export class ApiKeyInvalidations {
  private readonly signal: AppendSignal;
  /** This instance's name in pings and acknowledgements. */
  readonly instance = randomUUID();
  private readonly pingsInFlight = new Map<number, number>();
  private nextPing = 0;
  private heardPingSentAt = Number.NEGATIVE_INFINITY;
  private ticker: NodeJS.Timeout | null = null;
  private wasTrusted = false;
  private closed = false;
  private readonly echoWaiters = new Map<string, Set<() => void>>();
  /** Other instances by when their last ping was heard here: those that may be answering from a cache. */
  private readonly peersHeardAt = new Map<string, number>();
  private readonly acks = new Map<string, Set<string>>();
  private readonly ackWaiters = new Set<() => void>();

  constructor(
    private readonly db: Kysely<Database>,
    pool: pg.Pool,
    private readonly onInvalidation: (invalidation: Invalidation) => void,
    private readonly timing: InvalidationTiming = DEFAULT_INVALIDATION_TIMING,
    private readonly log?: Logger,
    private readonly monotonicNow: () => number = () => performance.now(),
  ) {
    this.signal = new AppendSignal(pool, API_KEY_INVALIDATION_CHANNEL, (payload) => this.onPayload(payload), {
      retryInitialMs: timing.relistenAfterMs,
      onRelisten: () => {
        this.heardPingSentAt = Number.NEGATIVE_INFINITY;
        this.onInvalidation({ kind: 'all' });
        void this.ping();
      },
    });
  }

  /** Listens and pings; a first LISTEN that fails is retried in the background (untrusted meanwhile). */
  async start(): Promise<void> {
    await this.signal.listen().catch((error: unknown) => this.log?.warn({ err: error }, 'API-key cache: LISTEN failed; every key is read from the database until it succeeds'));
    await this.ping();
    this.ticker = setInterval(() => this.tick(), this.timing.pingIntervalMs);
    this.ticker.unref();
  }

  trusted(): boolean {
    return this.signal.listening && this.monotonicNow() - this.heardPingSentAt <= this.timing.staleAfterMs;
  }

  /**
   * Resolves true when this instance hears the invalidation of `apiKeyId` (or of everything), false
   * after `timeoutMs` or at once when not listening. Call it before the change that notifies.
   */
  echoOf(apiKeyId: string, timeoutMs: number): { heard: Promise<boolean>; cancel(): void } {
    if (!this.signal.listening) return { heard: Promise.resolve(false), cancel: () => undefined };
    let settle: (heard: boolean) => void = () => undefined;
    const heard = new Promise<boolean>((resolve) => {
      const waiters = this.echoWaiters.get(apiKeyId) ?? new Set<() => void>();
      const done = (result: boolean) => {
        clearTimeout(timer);
        waiters.delete(onEcho);
        if (waiters.size === 0 && this.echoWaiters.get(apiKeyId) === waiters) this.echoWaiters.delete(apiKeyId);
        resolve(result);
      };
      const onEcho = () => done(true);
      const timer = setTimeout(() => done(false), timeoutMs);
      timer.unref();
      waiters.add(onEcho);
      this.echoWaiters.set(apiKeyId, waiters);
      settle = done;
    });
    return { heard, cancel: () => settle(false) };
  }

  /**
   * Resolves once no instance can answer from a cache that still holds what the invalidation `xid`
   * dropped: when this instance has heard it (`echoed`) and every other instance whose ping it
   * heard within the staleness bound has acknowledged it — or, whatever is heard, `staleAfterMs`
   * after `committedAt` (monotonic, when the change's commit was acknowledged). By then an instance
   * still using its cache has heard a ping of its own sent after that commit, which PostgreSQL
   * delivers after the invalidation. True when everyone acknowledged, false when the bound ended it.
   */
  async settled(xid: string, echoed: Promise<boolean>, committedAt: number): Promise<boolean> {
    const deadline = committedAt + this.timing.staleAfterMs + STALENESS_MARGIN_MS;
    const heard = await Promise.race([echoed, this.sleepUntil(deadline).then(() => false)]);
    // Heard here: every ping committed before the invalidation has been heard too.
    const peers = this.peers();
    for (;;) {
      if (heard && peers.every((instance) => this.acks.get(xid)?.has(instance))) return true;
      if (this.monotonicNow() >= deadline || this.closed) return false;
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          this.ackWaiters.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, Math.max(1, deadline - this.monotonicNow()));
        this.ackWaiters.add(wake);
      });
    }
  }

  /** The other instances whose pings were heard within the staleness bound. */
  peers(): string[] {
    const since = this.monotonicNow() - this.timing.staleAfterMs - STALENESS_MARGIN_MS;
    // Instances gone quiet (stopped, or no longer hearing themselves) are forgotten.
    for (const [instance, heardAt] of this.peersHeardAt) if (heardAt < since) this.peersHeardAt.delete(instance);
    return [...this.peersHeardAt.keys()];
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.ticker) clearInterval(this.ticker);
    this.ticker = null;
    for (const wake of [...this.ackWaiters]) wake();
    for (const waiters of [...this.echoWaiters.values()]) for (const wake of [...waiters]) wake();
    await this.signal.close();
  }

  private tick(): void {
    const trusted = this.trusted();
    if (!trusted) this.onInvalidation({ kind: 'all' });
    if (trusted !== this.wasTrusted) {
      if (trusted) this.log?.info('API-key cache: invalidations heard; the cache is in use');
      else this.log?.warn('API-key cache: invalidations not heard (LISTEN down or pings not returning); every key is read from the database');
    }
    this.wasTrusted = trusted;
    void this.ping();
  }

  private async ping(): Promise<void> {
    if (!this.signal.listening) return;
    const sequence = this.nextPing;
    this.nextPing += 1;
    this.pingsInFlight.set(sequence, this.monotonicNow());
    // Pings lost on a dropped connection never come back: keep only the recent ones.
    for (const old of this.pingsInFlight.keys()) if (old < sequence - 100) this.pingsInFlight.delete(old);
    await sql`SELECT pg_notify(${API_KEY_INVALIDATION_CHANNEL}, ${`ping ${this.instance} ${sequence}`})`.execute(this.db).catch(() => this.pingsInFlight.delete(sequence));
  }

  private onPayload(payload: string): void {
    const notification = parseNotification(payload);
    if (!notification) return;
    if (notification.kind === 'ack') {
      this.recordAck(notification.instance, notification.xid);
      return;
    }
    if (notification.kind === 'ping') {
      if (notification.instance !== this.instance) this.peersHeardAt.set(notification.instance, this.monotonicNow());
      const sentAt = notification.instance === this.instance ? this.pingsInFlight.get(notification.sequence) : undefined;
      if (sentAt === undefined) return;
      this.heardPingSentAt = Math.max(this.heardPingSentAt, sentAt);
      for (const sequence of this.pingsInFlight.keys()) if (sequence <= notification.sequence) this.pingsInFlight.delete(sequence);
      return;
    }
    this.onInvalidation(notification);
    if (notification.xid !== undefined) void this.acknowledge(notification.xid);
    const echoed = notification.kind === 'key' ? [this.echoWaiters.get(notification.apiKeyId)] : notification.kind === 'all' ? [...this.echoWaiters.values()] : [];
    for (const waiters of echoed) for (const wake of [...(waiters ?? [])]) wake();
  }

  /** Tells the instance that made the change (and any other) that this one has forgotten what it dropped. */
  private async acknowledge(xid: string): Promise<void> {
    await sql`SELECT pg_notify(${API_KEY_INVALIDATION_CHANNEL}, ${`ack ${this.instance} ${xid}`})`.execute(this.db).catch(() => undefined);
  }

  private recordAck(instance: string, xid: string): void {
    const instances = this.acks.get(xid) ?? new Set<string>();
    instances.add(instance);
    this.acks.set(xid, instances);
    while (this.acks.size > ACKS_KEPT) this.acks.delete(this.acks.keys().next().value as string);
    for (const wake of [...this.ackWaiters]) wake();
  }

  private sleepUntil(deadline: number): Promise<void> {
    return new Promise((resolve) => setTimeout(resolve, Math.max(0, deadline - this.monotonicNow())).unref());
  }
}
