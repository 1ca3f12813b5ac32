import type { Kysely } from 'kysely';
import type pg from 'pg';
import { comparePositions, type GlobalPosition, START_POSITION } from '../../core/events.js';
import type { Database } from '../database/schema.js';
import { AppendSignal } from '../event-store/append-signal.js';

export const CHECKPOINT_CHANNEL = 'ledgerline_checkpoints';

/**
 * Read-your-writes: knows how far every projection has got — from this process's runners
 * and, through NOTIFY, from runners in other instances — and lets a request wait for a position.
 */
export class CheckpointWatch {
  private readonly positions = new Map<string, GlobalPosition>();
  private readonly waiters = new Set<() => void>();
  private readonly signal: AppendSignal;
  private refreshing: Promise<void> | null = null;

  constructor(
    private readonly db: Kysely<Database>,
    pool: pg.Pool,
    private readonly projectionNames: readonly string[],
  ) {
    this.signal = new AppendSignal(pool, CHECKPOINT_CHANNEL, (payload) => this.onNotification(payload));
  }

  async start(): Promise<void> {
    await this.signal.listen();
    await this.refresh();
  }

  advance(name: string, position: GlobalPosition): void {
    const known = this.positions.get(name);
    if (known && comparePositions(known, position) >= 0) return;
    this.positions.set(name, position);
    for (const wake of [...this.waiters]) wake();
  }

  /** Resolves true once every projection has applied `position`, false when `timeoutMs` ran out first. */
  async waitFor(position: GlobalPosition, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (!this.hasReached(position)) {
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
        }, Math.min(left, 100));
        this.waiters.add(wake);
      });
    }
    return true;
  }

  hasReached(position: GlobalPosition): boolean {
    return this.projectionNames.every((name) => comparePositions(this.positions.get(name) ?? START_POSITION, position) >= 0);
  }

  /** Reads every checkpoint; concurrent callers (each waiting request's timer) share one read. */
  refresh(): Promise<void> {
    this.refreshing ??= this.db
      .selectFrom('projection_checkpoints')
      .select(['name', 'position_commit', 'position_prepare'])
      .execute()
      .then((rows) => {
        for (const row of rows) this.advance(row.name, { commit: BigInt(row.position_commit), prepare: BigInt(row.position_prepare) });
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
    const [name, commit, prepare] = payload.split(' ');
    if (name && commit && prepare) this.advance(name, { commit: BigInt(commit), prepare: BigInt(prepare) });
  }
}
