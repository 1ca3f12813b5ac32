import { type Kysely, sql } from 'kysely';
import type pg from 'pg';
import { comparePositions, type GlobalPosition, START_POSITION } from '../../core/events.js';
import type { Database } from '../database/schema.js';
import { AppendSignal } from '../event-store/append-signal.js';

export const CHECKPOINT_CHANNEL = 'ledgerline_checkpoints';

/** How long a waiting request trusts notifications before it reads the checkpoints itself. */
const REFRESH_INTERVAL_MS = 100;

export interface WatchedProjection {
  readonly name: string;
  readonly version: number;
}

/**
 * Read-your-writes: knows how far this release's version of every projection has got — from this
 * process's runners and, through NOTIFY, from runners in other instances — which events each has
 * parked, and lets a request wait for a position.
 *
 * Notification payloads: lines of `<name> <version> <commit> <prepare>` when checkpoints move
 * (one notification for every projection a daemon batch moved), `parked <name> <version> <commit>
 * <prepare>` when an event is parked (sent before the move).
 */
export class CheckpointWatch {
  private readonly versions: ReadonlyMap<string, number>;
  private readonly positions = new Map<string, GlobalPosition>();
  private readonly parkedPositions = new Map<string, GlobalPosition[]>();
  private readonly waiters = new Set<() => void>();
  private readonly signal: AppendSignal;
  private refreshing: Promise<void> | null = null;

  constructor(
    private readonly db: Kysely<Database>,
    pool: pg.Pool,
    projections: readonly WatchedProjection[],
  ) {
    this.versions = new Map(projections.map((projection) => [projection.name, projection.version]));
    // Notifications sent while the LISTEN connection was down are lost: read the checkpoints at once.
    this.signal = new AppendSignal(pool, CHECKPOINT_CHANNEL, (payload) => this.onNotification(payload), { onRelisten: () => void this.refresh().catch(() => undefined) });
  }

  get projectionNames(): string[] {
    return [...this.versions.keys()];
  }

  async start(): Promise<void> {
    await this.signal.listen();
    await this.refresh();
  }

  advance(name: string, position: GlobalPosition): void {
    if (!this.versions.has(name)) return;
    const known = this.positions.get(name);
    if (known && comparePositions(known, position) >= 0) return;
    this.positions.set(name, position);
    for (const wake of [...this.waiters]) wake();
  }

  /** Records that `name` parked the event at `position`; runners call it before moving past it. */
  parked(name: string, position: GlobalPosition): void {
    if (!this.versions.has(name)) return;
    const known = this.parkedPositions.get(name) ?? [];
    if (known.some((parked) => comparePositions(parked, position) === 0)) return;
    this.parkedPositions.set(name, [...known, position]);
  }

  /**
   * Resolves true once every projection in `names` (default: all) has applied `position` — or moved
   * past it by parking it — and false when `timeoutMs` ran out first.
   */
  async waitFor(position: GlobalPosition, timeoutMs: number, names: readonly string[] = this.projectionNames): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (!this.hasReached(position, names)) {
      const left = deadline - Date.now();
      if (left <= 0) return false;
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          this.waiters.delete(wake);
          resolve();
        };
        // A missed notification costs at most one re-read of the checkpoints.
        const timer = setTimeout(() => {
          wake();
          void this.refresh().catch(() => undefined);
        }, Math.min(left, REFRESH_INTERVAL_MS));
        this.waiters.add(wake);
      });
    }
    return true;
  }

  hasReached(position: GlobalPosition, names: readonly string[] = this.projectionNames): boolean {
    return names.every((name) => comparePositions(this.positions.get(name) ?? START_POSITION, position) >= 0);
  }

  /**
   * The first of `names` that parked an event of the append ending at `position`: the events of
   * one append share its commit position and come at or before its last event.
   */
  parkedWithin(position: GlobalPosition, names: readonly string[] = this.projectionNames): string | null {
    for (const name of names) {
      const parked = this.parkedPositions.get(name) ?? [];
      if (parked.some((event) => event.commit === position.commit && event.prepare <= position.prepare)) return name;
    }
    return null;
  }

  /** Reads every checkpoint and parked event of this release's versions; concurrent callers share one read. */
  refresh(): Promise<void> {
    this.refreshing ??= Promise.all([
      this.db.selectFrom('projection_versions').select(['name', 'version', 'position_commit', 'position_prepare']).execute(),
      sql<{ projection: string; version: number; position_commit: string; position_prepare: string }>`
        SELECT projection, version, position_commit, position_prepare FROM parked_events WHERE status = 'parked'`
        .execute(this.db)
        .then((result) => result.rows),
    ])
      .then(([checkpoints, parked]) => {
        // Parked first: a waiter woken by the checkpoint must already see what was parked below it.
        for (const row of parked) {
          if (this.versions.get(row.projection) === row.version) this.parked(row.projection, positionOf(row));
        }
        for (const row of checkpoints) {
          if (this.versions.get(row.name) === row.version) this.advance(row.name, positionOf(row));
        }
      })
      .finally(() => {
        this.refreshing = null;
      });
    return this.refreshing;
  }

  async close(): Promise<void> {
    for (const wake of [...this.waiters]) wake();
    await this.signal.close();
  }

  private onNotification(payload: string): void {
    for (const line of payload.split('\n')) {
      const parts = line.split(' ');
      const isParked = parts[0] === 'parked';
      const [name, version, commit, prepare] = isParked ? parts.slice(1) : parts;
      if (!name || !/^\d+$/.test(version ?? '') || !/^\d+$/.test(commit ?? '') || !/^\d+$/.test(prepare ?? '')) continue;
      if (this.versions.get(name) !== Number(version)) continue;
      const position = { commit: BigInt(commit), prepare: BigInt(prepare) };
      if (isParked) this.parked(name, position);
      else this.advance(name, position);
    }
  }
}

/**
 * Tells the other instances' watches where checkpoints moved, after the transactions that moved
 * them: PostgreSQL serialises the commits of notifying transactions (decision 0014). One
 * notification in flight at a time, for every projection that moved meanwhile (newest position
 * of each); one lost to a crash costs a waiter at most one re-read of the checkpoints.
 */
export class CheckpointAnnouncer {
  private readonly latest = new Map<string, string>();
  private sending = false;

  constructor(private readonly db: Kysely<Database>) {}

  announce(projection: WatchedProjection, position: GlobalPosition): void {
    this.latest.set(`${projection.name} ${projection.version}`, `${position.commit} ${position.prepare}`);
    if (!this.sending) void this.send();
  }

  private async send(): Promise<void> {
    this.sending = true;
    try {
      while (this.latest.size > 0) {
        const payload = [...this.latest].map(([projection, position]) => `${projection} ${position}`).join('\n');
        this.latest.clear();
        await sql`SELECT pg_notify(${CHECKPOINT_CHANNEL}, ${payload})`.execute(this.db);
      }
    } catch {
      this.latest.clear();
    } finally {
      this.sending = false;
    }
  }
}

function positionOf(row: { position_commit: string; position_prepare: string }): GlobalPosition {
  return { commit: BigInt(row.position_commit), prepare: BigInt(row.position_prepare) };
}
