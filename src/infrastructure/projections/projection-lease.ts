import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { performance } from 'node:perf_hooks';
import type pg from 'pg';

export interface Lease {
  held(): boolean;
  release(): Promise<void>;
}

export interface LeaseOptions {
  /** How long a lease lasts without renewal; it is renewed every third of this. */
  readonly ttlMs?: number;
  /** Who holds it, for operators (`projection_leases.holder`); unique per acquisition by default. */
  readonly holder?: string;
}

/** The `projection_leases` row (migration 0007). */
export interface ProjectionLeasesTable {
  name: string;
  holder: string;
  acquired_at: Date;
  expires_at: Date;
}

export const DEFAULT_LEASE_TTL_MS = 10_000;

/**
 * Expiry is set and compared by the database's clock only, so the instances' clocks need not agree.
 * Taken when free, expired, or already ours.
 */
const ACQUIRE = `
  INSERT INTO projection_leases AS lease (name, holder, expires_at)
  VALUES ($1, $2, now() + $3 * interval '1 millisecond')
  ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, acquired_at = now(), expires_at = excluded.expires_at
   WHERE lease.expires_at < now() OR lease.holder = excluded.holder
  RETURNING holder`;

/** An expired lease is not renewed, even if nobody has taken it yet: its holder already believes it lost. */
const RENEW = `
  UPDATE projection_leases SET expires_at = now() + $3 * interval '1 millisecond'
   WHERE name = $1 AND holder = $2 AND expires_at > now()`;

const RELEASE = 'DELETE FROM projection_leases WHERE name = $1 AND holder = $2';

/**
 * A lease in the database with an expiry that a heartbeat renews every ttl/3. A holder that dies,
 * hangs or is frozen (SIGSTOP, a blocked event loop) stops renewing and a standby takes over once
 * the expiry passes, ttl at most after the last renewal.
 *
 * `held()` judges by elapsed time on the monotonic clock, not only by timer callbacks (a hung
 * process's timers fire late): the local deadline is the send time of the last successful renewal
 * plus the ttl, never later than the expiry the server computed, so a holder stops believing in
 * its lease before anyone else can take it. Between a `held()` check and the commit of a batch
 * the lease may still run out; the runner's checkpoint compare-and-set is what keeps a stale
 * leader from applying a batch twice.
 */
export async function acquireLease(pool: pg.Pool, key: string, options: LeaseOptions = {}): Promise<Lease | null> {
  const ttlMs = options.ttlMs ?? DEFAULT_LEASE_TTL_MS;
  const holder = options.holder ?? `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  const sentAt = performance.now();
  const acquired = await pool.query(ACQUIRE, [key, holder, ttlMs]);
  if (acquired.rowCount !== 1) return null;

  let deadline = sentAt + ttlMs;
  let lost = false;
  let released = false;
  let renewing = false;
  // Once false, false for good: a renewal that returns late must not revive a lease the runner gave up.
  const held = () => {
    if (!lost && performance.now() >= deadline) lost = true;
    return !lost && !released;
  };

  const renew = async () => {
    if (renewing) return;
    if (!held()) {
      lost = true;
      clearInterval(heartbeat);
      return;
    }
    renewing = true;
    const renewSentAt = performance.now();
    try {
      const renewed = await pool.query(RENEW, [key, holder, ttlMs]);
      if (renewed.rowCount === 1) deadline = Math.max(deadline, renewSentAt + ttlMs);
      else lost = true;
    } catch {
      // A failed round trip (connection lost, timeout) proves nothing either way: the lease stays
      // held until its local deadline, and the next beat tries again.
    } finally {
      renewing = false;
    }
  };
  const heartbeat = setInterval(() => void renew(), Math.max(1, Math.floor(ttlMs / 3)));
  heartbeat.unref();

  return {
    held,
    async release() {
      if (released) return;
      released = true;
      clearInterval(heartbeat);
      // Only our own row: a standby may already hold it. Failing here costs a standby one ttl.
      await pool.query(RELEASE, [key, holder]).catch(() => undefined);
    },
  };
}
