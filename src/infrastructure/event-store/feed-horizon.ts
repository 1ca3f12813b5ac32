import { performance } from 'node:perf_hooks';
import type pg from 'pg';

export interface FeedHorizonOptions {
  /**
   * How long `$all` readers wait behind a transaction that is still running (default 10 s). It is
   * raised to twice the `statement_timeout` of the store's connections, and dropped when that is 0
   * (readers then wait as long as it takes): see docs/decisions/0008-feed-behind-an-old-transaction.md.
   */
  readonly oldTransactionBoundMs?: number;
  /** Told once per transaction the feed stopped waiting for (its xid, how long it had run). */
  readonly onOldTransaction?: (xid: string, runningForMs: number) => void;
  /**
   * Told when such a transaction, once ended, turns out to have written events after all (which
   * only a writer other than `appendToStream` can do): readers already past it never saw them.
   */
  readonly onEventsPassedOver?: (xid: string, count: number) => void;
}

export const DEFAULT_OLD_TRANSACTION_BOUND_MS = 10_000;

/**
 * The application name of the connections that write read models and nothing else (the daemon's,
 * a rebuild's): their transactions are never appends, so the feed does not wait behind them,
 * however long a batch takes (decision 0032).
 */
export const PROJECTION_WRITER_APPLICATION = 'ledgerline-projections';

/**
 * Only transactions older than every still-running one are visible to `$all` readers, so an
 * append that commits late can never be overtaken (docs/decisions/0001-event-store-ordering.md)
 * — except running transactions older than the bound (`$1`, their xids), which cannot be appends
 * (decision 0008), and those `pg_stat_activity` shows running in another database, which cannot
 * write to this one's events, or on a projection writer's connection, which never appends. One it cannot place (finished since the snapshot, or hidden from
 * this role) is waited for. The snapshot is the statement's own, so the rows and the horizon
 * agree; it is returned with the rows so the store learns which transactions are running.
 */
export const HORIZON = `snapshot AS MATERIALIZED (SELECT pg_current_snapshot() AS s),
  horizon AS MATERIALIZED (
    SELECT coalesce((SELECT min(x) FROM pg_snapshot_xip(s) x WHERE x <> ALL ($1::xid8[])
      AND NOT EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.backend_xid = x::xid
                        AND (a.datname <> current_database() OR a.application_name = '${PROJECTION_WRITER_APPLICATION}'))), pg_snapshot_xmax(s)) AS h FROM snapshot)`;
export const VISIBLE = 'transaction_id < (SELECT h FROM horizon)';

/**
 * Remembers when each transaction PostgreSQL reported as running (`pg_snapshot_xip`) was first
 * seen, and names those running longer than the bound, which readers stop waiting for.
 *
 * A transaction is only "old" once this process has itself seen it running for the whole bound,
 * and it stays old until a snapshot shows it finished: a snapshot taken before it began (one that
 * arrives out of order, its xmax at or below the xid) says nothing about it. Were its clock to
 * restart, the horizon would fall back below events readers had already been shown, and a reader
 * that took an earlier head as covered (the bulk replay) would step over them.
 */
export class FeedHorizon {
  private readonly firstSeen = new Map<string, number>();
  private readonly passedOver = new Set<string>();
  private bound: Promise<number> | null = null;

  constructor(
    private readonly pool: pg.Pool,
    private readonly options: FeedHorizonOptions = {},
  ) {}

  /** The `$1` of `HORIZON`: running transactions seen for longer than the bound. */
  async oldTransactions(now = performance.now()): Promise<string[]> {
    this.bound ??= this.effectiveBound().catch((error: unknown) => {
      this.bound = null;
      throw error;
    });
    const boundMs = await this.bound;
    if (!Number.isFinite(boundMs)) return [];
    const old: string[] = [];
    for (const [xid, seen] of this.firstSeen) {
      if (now - seen <= boundMs) continue;
      old.push(xid);
      if (!this.passedOver.has(xid)) {
        this.passedOver.add(xid);
        this.options.onOldTransaction?.(xid, Math.round(now - seen));
      }
    }
    return old;
  }

  /** Takes in the snapshot a read returned (`xmin:xmax:xip,…`) and forgets the transactions it no longer lists. */
  observe(snapshot: string | null | undefined, now = performance.now()): void {
    if (!snapshot) return;
    const [, xmax, list = ''] = snapshot.split(':');
    const running = new Set(list === '' ? [] : list.split(','));
    for (const xid of running) if (!this.firstSeen.has(xid)) this.firstSeen.set(xid, now);
    for (const xid of this.firstSeen.keys()) {
      if (running.has(xid) || !finishedBefore(xid, xmax)) continue;
      this.firstSeen.delete(xid);
      if (this.passedOver.delete(xid)) void this.checkPassedOver(xid);
    }
  }

  /**
   * The configured bound, raised to twice the connections' `statement_timeout` (read once): an
   * append is one autocommit statement, so it cannot run longer than that, and the other half is
   * left for its commit. Without a statement timeout there is no bound.
   */
  private async effectiveBound(): Promise<number> {
    const result = await this.pool.query<{ setting: string }>("SELECT setting FROM pg_settings WHERE name = 'statement_timeout'");
    const statementTimeoutMs = Number(result.rows[0]?.setting ?? 0);
    if (statementTimeoutMs <= 0) return Number.POSITIVE_INFINITY;
    return Math.max(this.options.oldTransactionBoundMs ?? DEFAULT_OLD_TRANSACTION_BOUND_MS, 2 * statementTimeoutMs);
  }

  /** Makes a broken assumption loud instead of silent: did a transaction readers stopped waiting for write events? */
  private async checkPassedOver(xid: string): Promise<void> {
    const { onEventsPassedOver } = this.options;
    if (!onEventsPassedOver) return;
    try {
      const result = await this.pool.query<{ count: number }>('SELECT count(*)::int AS count FROM events WHERE transaction_id = $1::xid8', [xid]);
      const count = result.rows[0]?.count ?? 0;
      if (count > 0) onEventsPassedOver(xid, count);
    } catch {
      // Best effort: a failed check is not repeated, and reading the feed goes on.
    }
  }
}

/** Not listed as running by a snapshot whose xmax is above it: the transaction had finished when the snapshot was taken. */
function finishedBefore(xid: string, xmax: string | undefined): boolean {
  return xmax !== undefined && /^\d+$/.test(xmax) && BigInt(xid) < BigInt(xmax);
}
