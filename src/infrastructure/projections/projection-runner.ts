import { type Kysely, sql } from 'kysely';
import type { GlobalPosition, RecordedEvent } from '../../core/events.js';
import type { DatabaseConnection } from '../database/database.js';
import type { Database } from '../database/schema.js';
import type { EventStore } from '../event-store/event-store.port.js';
import { CHECKPOINT_CHANNEL, type CheckpointWatch } from './checkpoint-watch.js';
import type { ProjectionDefinition } from './projection.js';
import { acquireLease, type Lease } from './projection-lease.js';

const BATCH_SIZE = 500;
const STANDBY_RETRY_MS = 1000;

export class LeaseLostError extends Error {
  constructor(name: string) {
    super(`Projection ${name}: another runner moved the checkpoint; standing down`);
  }
}

export interface ProjectionRunnerOptions {
  readonly onError?: (error: unknown) => void;
  readonly batchSize?: number;
}

/**
 * Applies one projection: only while holding its lease (one instance at a time), from its
 * checkpoint, in batches whose read-model changes and checkpoint commit in one transaction.
 */
export class ProjectionRunner {
  private stopped = false;
  private running: Promise<void> | null = null;
  private closeCurrent: (() => Promise<void>) | null = null;
  private readonly relevantTypes: ReadonlySet<string>;

  constructor(
    private readonly database: DatabaseConnection,
    private readonly store: EventStore,
    private readonly projection: ProjectionDefinition,
    private readonly watch: CheckpointWatch,
    private readonly options: ProjectionRunnerOptions = {},
  ) {
    this.relevantTypes = new Set(projection.eventTypes);
  }

  start(): void {
    this.running ??= this.loop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.closeCurrent?.();
    await this.running;
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      let lease: Lease | null = null;
      try {
        lease = await acquireLease(this.database.pool, `projection:${this.projection.name}`);
        if (lease) await this.applyWhileLeased(lease);
      } catch (error) {
        if (!this.stopped) this.options.onError?.(error);
      } finally {
        await lease?.release();
      }
      if (!this.stopped) await delay(STANDBY_RETRY_MS);
    }
  }

  private async applyWhileLeased(lease: Lease): Promise<void> {
    let checkpoint = await this.readCheckpoint();
    const subscription = this.store.subscribeToAll({ after: checkpoint });
    this.closeCurrent = () => subscription.close();
    try {
      for await (const batch of batches(subscription, this.options.batchSize ?? BATCH_SIZE)) {
        if (this.stopped) return;
        if (!lease.held()) throw new LeaseLostError(this.projection.name);
        checkpoint = await this.applyBatch(batch, checkpoint);
        this.watch.advance(this.projection.name, checkpoint);
      }
    } finally {
      this.closeCurrent = null;
      await subscription.close();
    }
  }

  private async applyBatch(events: readonly RecordedEvent[], from: GlobalPosition): Promise<GlobalPosition> {
    const to = events[events.length - 1].position;
    const relevant = events.filter((event) => this.relevantTypes.has(event.type));
    if (relevant.length === 0) {
      await this.moveCheckpoint(this.database.db, from, to, 0);
      return to;
    }
    await this.database.db.transaction().execute(async (trx) => {
      await this.projection.apply(trx, relevant);
      await this.moveCheckpoint(trx, from, to, relevant.length);
    });
    return to;
  }

  /**
   * Compare-and-set: if another runner moved the checkpoint, this batch must not count. The
   * NOTIFY (delivered on commit) tells every instance's read-your-writes waiters.
   */
  private async moveCheckpoint(db: Kysely<Database>, from: GlobalPosition, to: GlobalPosition, applied: number): Promise<void> {
    const name = this.projection.name;
    const moved = await sql<{ notified: unknown }>`
      UPDATE projection_checkpoints
         SET position_commit = ${to.commit.toString()}, position_prepare = ${to.prepare.toString()},
             events_applied = events_applied + ${applied}, updated_at = now()
       WHERE name = ${name} AND position_commit = ${from.commit.toString()} AND position_prepare = ${from.prepare.toString()}
      RETURNING pg_notify(${CHECKPOINT_CHANNEL}, ${`${name} ${to.commit} ${to.prepare}`}) AS notified`.execute(db);
    if (moved.rows.length !== 1) throw new LeaseLostError(name);
  }

  private async readCheckpoint(): Promise<GlobalPosition> {
    const row = await this.database.db
      .selectFrom('projection_checkpoints')
      .select(['position_commit', 'position_prepare'])
      .where('name', '=', this.projection.name)
      .executeTakeFirstOrThrow(() => new Error(`Projection ${this.projection.name} has no checkpoint row: run migrate first`));
    return { commit: BigInt(row.position_commit), prepare: BigInt(row.position_prepare) };
  }
}

/** Groups what the subscription already has buffered into batches, without waiting for more. */
async function* batches(source: AsyncIterable<RecordedEvent>, size: number): AsyncGenerator<RecordedEvent[]> {
  const iterator = source[Symbol.asyncIterator]();
  // The read ahead may fail (a lost connection) while a batch is being applied: keep its error for
  // the next await instead of letting it surface as an unhandled rejection that ends the process.
  const readAhead = () => {
    const next = iterator.next();
    next.catch(() => undefined);
    return next;
  };
  let next = readAhead();
  for (;;) {
    const first = await next;
    if (first.done) return;
    const batch = [first.value];
    next = readAhead();
    while (batch.length < size) {
      const ready = await Promise.race([next, nextTurn()]);
      if (ready === TURN) break;
      if (ready.done) {
        yield batch;
        return;
      }
      batch.push(ready.value);
      next = readAhead();
    }
    yield batch;
  }
}

const TURN = Symbol('turn');
const nextTurn = () => new Promise<typeof TURN>((resolve) => setImmediate(() => resolve(TURN)));
const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
