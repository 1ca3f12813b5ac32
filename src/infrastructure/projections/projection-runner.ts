import type { Transaction } from 'kysely';
import { comparePositions, formatPosition, type GlobalPosition, type RecordedEvent, START_POSITION } from '../../core/events.js';
import type { DatabaseConnection } from '../database/database.js';
import type { Database } from '../database/schema.js';
import type { EventStore } from '../event-store/event-store.port.js';
import type { CheckpointWatch } from './checkpoint-watch.js';
import { type EventFailure, parkEvent } from './parked-events.js';
import { type ProjectionDefinition, projectionSchema } from './projection.js';
import { backoffMs } from './projection-failure.js';
import { acquireLease, type Lease } from './projection-lease.js';
import { analyzeSchema, applyOneByOne, isEventFailure, readReplayBatch, REPLAY_BATCH_SIZE } from './projection-replay.js';
import { projectionTransaction } from './projection-transaction.js';
import { CheckpointAnnouncer, LeaseLostError, markCaughtUp, moveVersionCheckpoint, ProjectionSupersededError, readVersionCheckpoint } from './projection-versions.js';

export { LeaseLostError, ProjectionSupersededError } from './projection-versions.js';

const BATCH_SIZE = 500;
/** How long a checkpoint moved only past events that change nothing here may wait before it is stored and announced. */
const DEFERRED_CHECKPOINT_MS = 250;
const STANDBY_RETRY_MS = 1000;
/** Waits before each event-by-event pass over a failing batch; an event failing every pass is parked. */
const PARKING_DELAYS_MS = [50, 200, 500];

/** Where a runner says what it did about events it could not apply, and when it stands down for good. */
export interface ProjectionLog {
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

export interface ProjectionRunnerOptions {
  /** Failures it retries: transient ones (connection, serialization, timeout) and a lost lease. */
  readonly onError?: (error: unknown) => void;
  readonly log?: ProjectionLog;
  readonly batchSize?: number;
  readonly parkingDelaysMs?: readonly number[];
}

/**
 * Applies one version of one projection: only while holding its lease (one instance at a time),
 * from its checkpoint, in batches whose read-model changes and checkpoint commit in one
 * transaction. An event the projector cannot apply is parked rather than retried forever
 * (decision 0009); a newer version that has caught up makes it stand down for good.
 */
export class ProjectionRunner {
  private stopped = false;
  private running: Promise<void> | null = null;
  private closeCurrent: (() => Promise<void>) | null = null;
  private wakeFromWait: (() => void) | null = null;
  private readonly relevantTypes: ReadonlySet<string>;
  private readonly announcer: CheckpointAnnouncer;
  private caughtUp = false;
  private failures = 0;
  /** The checkpoint as stored: where the next commit moves it from (compare-and-set). */
  private stored: GlobalPosition = START_POSITION;
  /** Past `stored` over events that change nothing here, shown to this process's waiters but not stored yet. */
  private deferred: GlobalPosition | null = null;
  /** Events of its types that changed nothing (`changedBy`), passed since `stored`: counted as applied when it is stored. */
  private deferredApplied = 0;
  private deferredTimer: NodeJS.Timeout | null = null;
  private storingDeferred: Promise<void> = Promise.resolve();

  constructor(
    private readonly database: DatabaseConnection,
    private readonly store: EventStore,
    private readonly projection: ProjectionDefinition,
    private readonly watch: CheckpointWatch,
    private readonly options: ProjectionRunnerOptions = {},
  ) {
    this.relevantTypes = new Set(projection.eventTypes);
    this.announcer = new CheckpointAnnouncer(database.db, projection);
  }

  start(): void {
    this.running ??= this.loop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wakeFromWait?.();
    await this.closeCurrent?.();
    await this.running;
  }

  /**
   * A batch with no event that changes the read model (other types, or `changedBy` says no) moves
   * the checkpoint in this process at once (its waiters need no round trip) and in the table a
   * moment later, with the next batch that applies something or after DEFERRED_CHECKPOINT_MS:
   * every runner stored and announced every append before, 11 transactions for one edit. Until
   * then the stored checkpoint is behind only by events that change nothing here; a runner that
   * takes over from it reads them again and changes nothing (docs/decisions/0024).
   */
  private deferCheckpoint(to: GlobalPosition, applied: number): void {
    this.deferred = to;
    this.deferredApplied += applied;
    this.deferredTimer ??= setTimeout(() => {
      this.deferredTimer = null;
      if (!this.stopped) this.storingDeferred = this.storeDeferred().catch((error: unknown) => this.options.onError?.(error));
    }, DEFERRED_CHECKPOINT_MS);
  }

  private async storeDeferred(): Promise<void> {
    const to = this.deferred;
    if (to === null) return;
    const applied = this.deferredApplied;
    await projectionTransaction(this.database.db, this.projection, (trx) => moveVersionCheckpoint(trx, this.projection, this.stored, to, applied));
    this.stored = to;
    this.deferredApplied -= applied;
    if (this.deferred === to) this.deferred = null;
    this.announcer.announce(to);
  }

  private cancelDeferred(): void {
    if (this.deferredTimer) clearTimeout(this.deferredTimer);
    this.deferredTimer = null;
    this.deferred = null;
    this.deferredApplied = 0;
  }

  private async loop(): Promise<void> {
    const { name, version } = this.projection;
    while (!this.stopped) {
      let lease: Lease | null = null;
      let wait = STANDBY_RETRY_MS;
      try {
        lease = await acquireLease(this.database.pool, `projection:${name}:${version}`);
        if (lease) await this.applyWhileLeased(lease);
      } catch (error) {
        if (error instanceof ProjectionSupersededError) {
          this.options.log?.warn({ projection: name, version, newerVersion: error.newerVersion }, error.message);
          return;
        }
        if (!this.stopped) this.options.onError?.(error);
        // A lost lease is another runner's turn; anything else is retried, backing off while it lasts.
        if (!(error instanceof LeaseLostError)) {
          this.failures += 1;
          wait = backoffMs(this.failures);
        }
      } finally {
        await lease?.release();
      }
      if (!this.stopped) await this.pause(wait);
    }
  }

  private async applyWhileLeased(lease: Lease): Promise<void> {
    const read = await readVersionCheckpoint(this.database.db, this.projection);
    this.cancelDeferred();
    let checkpoint = read.position;
    this.stored = checkpoint;
    this.caughtUp = read.caughtUp;
    if (!this.caughtUp) {
      checkpoint = await this.buildInBulk(checkpoint, lease);
      if (this.stopped) return;
    }
    // Nothing new to apply (an empty store, a restart at the head) is caught up too.
    if (!this.caughtUp && comparePositions(checkpoint, await this.store.headPosition()) >= 0) {
      await this.database.db.transaction().execute((trx) => markCaughtUp(trx, this.projection));
      this.caughtUp = true;
    }
    const subscription = this.store.subscribeToAll({ after: checkpoint });
    this.closeCurrent = () => subscription.close();
    try {
      // stop() may have come while the checkpoint was read, before there was a subscription to close.
      if (this.stopped) return;
      for await (const batch of batches(subscription, this.options.batchSize ?? BATCH_SIZE)) {
        if (this.stopped) return;
        if (!lease.held()) throw new LeaseLostError(this.projection.name);
        checkpoint = await this.applyBatch(batch, lease);
        this.failures = 0;
        this.watch.advance(this.projection.name, checkpoint);
        if (this.deferred === null) this.announcer.announce(checkpoint);
      }
    } finally {
      this.closeCurrent = null;
      await subscription.close();
      // Stopping, or the lease gone: store what was deferred while it is still ours, or leave it to the next holder.
      if (this.deferredTimer) clearTimeout(this.deferredTimer);
      this.deferredTimer = null;
      await this.storingDeferred;
      if (lease.held()) await this.storeDeferred().catch((error: unknown) => this.options.onError?.(error));
      this.deferred = null;
      this.deferredApplied = 0;
    }
  }

  /**
   * A version that has never reached the head (a new one, or the first start): the bulk replay of
   * `projections rebuild` (decision 0019) — large reads of its own event types only, each batch
   * committed with the checkpoint as always — then fresh planner statistics for the loaded tables.
   */
  private async buildInBulk(from: GlobalPosition, lease: Lease): Promise<GlobalPosition> {
    let checkpoint = from;
    for (;;) {
      if (this.stopped) return checkpoint;
      if (!lease.held()) throw new LeaseLostError(this.projection.name);
      const batch = await readReplayBatch(this.store, this.projection, checkpoint, this.options.batchSize ?? REPLAY_BATCH_SIZE);
      if (comparePositions(batch.to, checkpoint) > 0) {
        checkpoint = await this.applyRelevant(batch.events, batch.to, lease);
        this.failures = 0;
        this.watch.advance(this.projection.name, checkpoint);
        this.announcer.announce(checkpoint);
      }
      if (batch.atEnd) break;
    }
    await analyzeSchema(this.database.db, projectionSchema(this.projection));
    return checkpoint;
  }

  /** Waits between attempts; stop() ends the wait at once. */
  private pause(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wakeFromWait = done;
    }).finally(() => {
      this.wakeFromWait = null;
    });
  }

  private applyBatch(events: readonly RecordedEvent[], lease: Lease): Promise<GlobalPosition> {
    const relevant = events.filter((event) => this.relevantTypes.has(event.type));
    return this.applyRelevant(relevant, events[events.length - 1].position, lease);
  }

  /** Applies the batch's events of the projection's types and moves the checkpoint to `to`. */
  private async applyRelevant(relevant: readonly RecordedEvent[], to: GlobalPosition, lease: Lease): Promise<GlobalPosition> {
    if (this.caughtUp && !relevant.some((event) => this.projection.changedBy?.(event) ?? true)) {
      this.deferCheckpoint(to, relevant.length);
      return to;
    }
    try {
      await this.commit(to, relevant.length, async (trx) => {
        if (relevant.length > 0) await this.projection.apply(trx, relevant);
        return [];
      });
      return to;
    } catch (error) {
      if (!isEventFailure(error)) throw error;
    }
    await this.applyEventByEvent(relevant, to, lease);
    return to;
  }

  /**
   * The batch failed on something other than the database: re-apply it one event at a time, each
   * in a savepoint, so the good events still apply. An event that fails every pass is parked in the
   * transaction that moves the checkpoint past it; a transient error ends the attempt unparked.
   */
  private async applyEventByEvent(relevant: readonly RecordedEvent[], to: GlobalPosition, lease: Lease): Promise<void> {
    const delays = this.options.parkingDelaysMs ?? PARKING_DELAYS_MS;
    const failures = new Map<string, EventFailure>();
    for (let pass = 0; pass < delays.length; pass += 1) {
      await delay(delays[pass]);
      if (this.stopped || !lease.held()) throw new LeaseLostError(this.projection.name);
      const final = pass === delays.length - 1;
      const failing: EventFailure[] = [];
      const committed = await this.commit(to, relevant.length, async (trx) => {
        const now = new Date();
        for (const { event, error } of await applyOneByOne(trx, this.projection, relevant)) {
          const earlier = failures.get(event.id);
          const failure = { event, error, attempts: (earlier?.attempts ?? 0) + 1, firstFailedAt: earlier?.firstFailedAt ?? now, lastFailedAt: now };
          failures.set(event.id, failure);
          failing.push(failure);
        }
        // Not yet the last pass: undo the good events too, and try the whole batch again after a wait.
        if (failing.length > 0 && !final) throw new RetryPass();
        return failing;
      }).then(
        () => true,
        (error: unknown) => {
          if (error instanceof RetryPass) return false;
          throw error;
        },
      );
      if (committed) {
        this.reportParked(failing);
        return;
      }
    }
  }

  /**
   * One transaction: the work, the events it parks, the checkpoint move and, the first time this
   * version reaches the head of the feed, its caught-up mark.
   */
  private async commit(to: GlobalPosition, relevant: number, work: (trx: Transaction<Database>) => Promise<readonly EventFailure[]>): Promise<void> {
    // From the stored checkpoint, over any deferred move: one at a time.
    if (this.deferredTimer) clearTimeout(this.deferredTimer);
    this.deferredTimer = null;
    await this.storingDeferred;
    let caughtUpNow = false;
    await projectionTransaction(this.database.db, this.projection, async (trx) => {
      const parked = await work(trx);
      for (const failure of parked) await parkEvent(trx, this.projection, failure);
      await moveVersionCheckpoint(trx, this.projection, this.stored, to, relevant - parked.length + this.deferredApplied);
      if (!this.caughtUp && comparePositions(to, await this.store.headPosition()) >= 0) {
        await markCaughtUp(trx, this.projection);
        caughtUpNow = true;
      }
    });
    this.stored = to;
    this.deferred = null;
    this.deferredApplied = 0;
    if (caughtUpNow) this.caughtUp = true;
  }

  private reportParked(parked: readonly EventFailure[]): void {
    const { name, version } = this.projection;
    for (const { event, error, attempts } of parked) {
      this.watch.parked(name, event.position);
      this.options.log?.error(
        {
          projection: name,
          version,
          position: formatPosition(event.position),
          eventId: event.id,
          eventType: event.type,
          streamId: event.streamId,
          userId: event.metadata?.userId,
          requestId: event.metadata?.requestId,
          correlationId: event.metadata?.correlationId,
          attempts,
          error,
        },
        `projection ${name} parked an event it cannot apply; see \`ledgerline projections parked\``,
      );
    }
  }
}

/** Thrown inside a pass to roll it back whole; never leaves the runner. */
class RetryPass extends Error {}


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
