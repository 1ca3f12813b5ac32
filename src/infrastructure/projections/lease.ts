import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { performance } from 'node:perf_hooks';
import pg from 'pg';

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

/** The `projection_leases` row (migrations 0007, 0024). */
export interface ProjectionLeasesTable {
  name: string;
  holder: string;
  acquired_at: Date;
  expires_at: Date;
  holder_pid: number | null;
  holder_application: string | null;
}

export const DEFAULT_LEASE_TTL_MS = 10_000;

/**
 * Taken when free, expired, already ours, or when its holder's connection is gone: the holder
 * renews through a connection of its own, named uniquely, so a crashed holder (kill -9, a lost
 * machine whose connection PostgreSQL dropped) is seen at once in `pg_stat_activity` and needs no
 * expiry; a hung one (SIGSTOP, a blocked event loop) keeps its connection and loses the lease only
 * when the expiry passes. Expiry is set and compared by the database's clock alone.
 */
const ACQUIRE = `
  INSERT INTO projection_leases AS lease (name, holder, expires_at, holder_pid, holder_application)
  VALUES ($1, $2, now() + $3 * interval '1 millisecond', pg_backend_pid(), current_setting('application_name'))
  ON CONFLICT (name) DO UPDATE
    SET holder = excluded.holder, acquired_at = now(), expires_at = excluded.expires_at,
        holder_pid = excluded.holder_pid, holder_application = excluded.holder_application
  WHERE lease.expires_at < now() OR lease.holder = excluded.holder
     OR (lease.holder_pid IS NOT NULL
         AND NOT EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.pid = lease.holder_pid AND a.application_name = lease.holder_application))
  RETURNING holder`;

/** An expired lease is not renewed, even if nobody has taken it yet: its holder already believes it lost. */
const RENEW = `
  UPDATE projection_leases SET expires_at = now() + $3 * interval '1 millisecond'
   WHERE name = $1 AND holder = $2 AND expires_at > now()`;

const RELEASE = 'DELETE FROM projection_leases WHERE name = $1 AND holder = $2';

/**
 * A lease in the database, renewed by heartbeat every ttl/3 over a connection it keeps for itself
 * (its identity for crash takeover, above). `held()` judges by elapsed time on the monotonic
 * clock, not only by timer callbacks (a hung process's timers fire late): the local deadline is
 * the send time of the last successful renewal plus the ttl, so a holder stops believing in its
 * lease before anyone else can take it. The lease only decides who does the work; what keeps two
 * believers from applying anything twice is the checkpoint row lock (decision 0032).
 */
export async function acquireLease(connectionString: string, key: string, options: LeaseOptions = {}): Promise<Lease | null> {
  const ttlMs = options.ttlMs ?? DEFAULT_LEASE_TTL_MS;
  const holder = options.holder ?? `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  const client = new pg.Client({ connectionString, application_name: `ledgerline-lease:${randomBytes(6).toString('hex')}`, keepAlive: true, connectionTimeoutMillis: 5_000, options: '-c statement_timeout=5000' });
  let connectionLost = false;
  client.on('error', () => {
    connectionLost = true;
  });
  client.on('end', () => {
    connectionLost = true;
  });
  const sentAt = performance.now();
  try {
    await client.connect();
    const acquired = await client.query(ACQUIRE, [key, holder, ttlMs]);
    if (acquired.rowCount !== 1) {
      await client.end().catch(() => undefined);
      return null;
    }
  } catch (error) {
    await client.end().catch(() => undefined);
    throw error;
  }

  let deadline = sentAt + ttlMs;
  let lost = false;
  let released = false;
  let renewing = false;
  // Once false, false for good: a renewal that returns late must not revive a lease the holder gave up.
  const held = () => {
    if (!lost && (connectionLost || performance.now() >= deadline)) lost = true;
    return !lost && !released;
  };

  const renew = async () => {
    if (renewing) return;
    if (!held()) {
      clearInterval(heartbeat);
      return;
    }
    renewing = true;
    const renewSentAt = performance.now();
    try {
      const renewed = await client.query(RENEW, [key, holder, ttlMs]);
      if (renewed.rowCount === 1) deadline = Math.max(deadline, renewSentAt + ttlMs);
      else lost = true;
    } catch {
      // A failed round trip proves nothing either way: the deadline decides, and a dead connection ends it.
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
      // Only our own row: a standby may already hold it. Failing here costs a standby one ttl at most,
      // and nothing once our connection closes below.
      if (!connectionLost) await client.query(RELEASE, [key, holder]).catch(() => undefined);
      await client.end().catch(() => undefined);
    },
  };
}
