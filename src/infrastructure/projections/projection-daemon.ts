import { comparePositions, formatPosition, type GlobalPosition, type RecordedEvent, START_POSITION } from '../../core/events.js';
import type { DatabaseConnection } from '../database/database.js';
import type { EventStore } from '../event-store/event-store.port.js';
import { CheckpointAnnouncer, type CheckpointWatch } from './checkpoint-watch.js';
import { acquireLease, DEFAULT_LEASE_TTL_MS, type Lease } from './lease.js';
import { parkEvent } from './parked-events.js';
import { appliedInlineTo, type ProjectionDefinition, projectionChangedBy, projectionSchema } from './projection.js';
import { backoffMs } from './projection-failure.js';
import { analyzeSchema, readReplayBatch, REPLAY_BATCH_SIZE } from './projection-replay.js';
import {
  applyIsolatingFailures,
  ATTEMPTS_PER_EVENT,
  type EventFailure,
  moveCheckpoint,
  ProjectionSupersededError,
  projectionTransaction,
  storePassedCheckpoints,
} from './projection-transaction.js';

/** Where the daemon says what it could not apply, what failed and when a projection stands down. */
export interface ProjectionLog {
  info?(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

export interface ProjectionDaemonOptions {
  readonly log?: ProjectionLog;
  /** Events per read of the shared feed. */
  readonly batchSize?: number;
  /** Events per read of a projection catching up on its own (a first build). */
  readonly buildBatchSize?: number;
  readonly leaseTtlMs?: number;
  /** How often a standby asks for the lease. */
  readonly standbyPollMs?: number;
  readonly attemptsPerEvent?: number;
}

export const DAEMON_LEASE = 'projection-daemon';
const BATCH_SIZE = 500;
const STANDBY_POLL_MS = 500;
/** How long a checkpoint that only passed events changing nothing waits before it is stored (decision 0024). */
const PASSED_CHECKPOINT_MS = 250;
/** Batches a projection with the feed may have waiting before it leaves the feed to catch up on its own. */
const MAX_QUEUED_BATCHES = 20;
/** A live projection further behind than this when the daemon starts leading catches up on its own. */
const FAR_BEHIND_EVENTS = 5_000;

type TrackState = 'joined' | 'catching-up' | 'superseded';

interface QueuedBatch {
  readonly batch: readonly RecordedEvent[];
  readonly to: GlobalPosition;
}

/** One projection version as the daemon leads it. */
interface Track {
  readonly projection: ProjectionDefinition;
  readonly types: ReadonlySet<string>;
  state: TrackState;
  caughtUp: boolean;
  /** Everything up to here is applied, or passed as changing nothing (maybe not stored yet). */
  position: GlobalPosition;
  /** Passed and not stored yet: the events of its types counted then. */
  passed: { to: GlobalPosition; applied: number } | null;
  busy: boolean;
  /** Its commit in flight, if any: a catch-up starts after it. */
  inFlight: Promise<void> | null;
  /** A catch-up task of its own is running. */
  catchingUp: boolean;
  /** Batches of the feed delivered and not applied yet, and the task applying them. */
  queue: QueuedBatch[];
  draining: Promise<void> | null;
  failures: number;
}

export interface DaemonReport {
  readonly leading: boolean;
  readonly projections: readonly { name: string; version: number; state: TrackState; position: GlobalPosition }[];
}

/**
 * The projection daemon (decision 0032): one per process, and at work in one process at a time —
 * the holder of the `projection-daemon` lease; the others stand by and take over at once when the
 * holder's connection is gone, or when its lease expires (a hung holder). It reads the feed once
 * and fans each batch out to every projection that is with the feed; a projection behind it — a
 * new version's first build, one whose last batch failed on the database — catches up on its own
 * with large reads of its own event types, then joins. Each projection's batch commits its rows
 * and checkpoint in one transaction holding its checkpoint row, through the one apply path that
 * parks an event it cannot apply.
 */
export class ProjectionDaemon {
  private readonly tracks: Track[];
  private readonly announcer: CheckpointAnnouncer;
  private stopped = false;
  private leading = false;
  private running: Promise<void> | null = null;
  private readonly wakers = new Set<() => void>();
  private closeFeed: (() => Promise<void>) | null = null;
  /** The newest position the shared feed has delivered: where a projection catching up may join. */
  private feedPosition: GlobalPosition = START_POSITION;
  private passedTimer: NodeJS.Timeout | null = null;
  private storingPassed: Promise<void> = Promise.resolve();
  private readonly catchingUp = new Set<Promise<void>>();

  constructor(
    private readonly database: DatabaseConnection,
    private readonly store: EventStore,
    projections: readonly ProjectionDefinition[],
    private readonly watch: CheckpointWatch,
    private readonly options: ProjectionDaemonOptions = {},
  ) {
    this.tracks = projections.map((projection) => ({
      projection,
      types: new Set(projection.eventTypes),
      state: 'catching-up',
      caughtUp: false,
      position: START_POSITION,
      passed: null,
      busy: false,
      inFlight: null,
      catchingUp: false,
      queue: [],
      draining: null,
      failures: 0,
    }));
    this.announcer = new CheckpointAnnouncer(database.db);
  }

  start(): void {
    this.running ??= this.loop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const wake of [...this.wakers]) wake();
    await this.closeFeed?.();
    await this.running;
  }

  report(): DaemonReport {
    return {
      leading: this.leading,
      projections: this.tracks.map((track) => ({ name: track.projection.name, version: track.projection.version, state: track.state, position: track.position })),
    };
  }

  private async loop(): Promise<void> {
    let failures = 0;
    while (!this.stopped) {
      let lease: Lease | null = null;
      try {
        lease = await acquireLease(this.database.url, DAEMON_LEASE, { ttlMs: this.options.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS });
        if (lease) {
          failures = 0;
          this.leading = true;
          this.options.log?.info?.({ lease: DAEMON_LEASE }, 'projection daemon leading');
          await this.lead(lease);
        }
      } catch (error) {
        failures += 1;
        if (!this.stopped) this.options.log?.error({ err: error }, 'projection daemon failed; retrying');
      } finally {
        this.leading = false;
        await lease?.release();
      }
      if (!this.stopped) await this.pause(failures > 0 ? backoffMs(failures) : (this.options.standbyPollMs ?? STANDBY_POLL_MS));
    }
  }

  private async lead(lease: Lease): Promise<void> {
    await this.loadCheckpoints();
    const joined = this.tracks.filter((track) => track.state === 'joined');
    const from = joined.length > 0 ? joined.map((track) => track.position).reduce(earlier) : await this.store.headPosition();
    this.feedPosition = from;
    const feed = this.store.subscribeToAll({ after: from });
    this.closeFeed = () => feed.close();
    for (const track of this.tracks) if (track.state === 'catching-up') this.catchUp(track, lease);
    try {
      if (this.stopped) return;
      for await (const batch of batches(feed, this.options.batchSize ?? BATCH_SIZE)) {
        if (this.stopped || !lease.held()) return;
        const to = batch[batch.length - 1].position;
        // Delivered: a projection catching up joins only once it has these too.
        this.feedPosition = to;
        for (const track of this.tracks) if (track.state === 'joined') this.deliver(track, batch, to, lease);
      }
    } finally {
      this.closeFeed = null;
      await feed.close();
      await Promise.all(this.tracks.map((track) => track.draining));
      await Promise.all([...this.catchingUp]);
      if (this.passedTimer) clearTimeout(this.passedTimer);
      this.passedTimer = null;
      await this.storingPassed;
      if (lease.held()) await this.storePassed().catch((error: unknown) => this.options.log?.error({ err: error }, 'could not store passed checkpoints'));
    }
  }

  private async loadCheckpoints(): Promise<void> {
    const rows = await this.database.db.selectFrom('projection_versions').select(['name', 'version', 'position_commit', 'position_prepare', 'caught_up_at', 'superseded_at']).execute();
    for (const track of this.tracks) {
      const { name, version } = track.projection;
      const row = rows.find((candidate) => candidate.name === name && candidate.version === version);
      if (!row) throw new Error(`Projection ${name} version ${version} has no checkpoint row: run \`ledgerline migrate\` first`);
      const newer = rows.some((candidate) => candidate.name === name && candidate.version > version && candidate.caught_up_at !== null);
      track.position = { commit: BigInt(row.position_commit), prepare: BigInt(row.position_prepare) };
      track.caughtUp = row.caught_up_at !== null;
      track.passed = null;
      track.failures = 0;
      track.state = row.superseded_at || newer ? 'superseded' : track.caughtUp ? 'joined' : 'catching-up';
      this.watch.advance(name, track.position);
    }
    // A live projection far behind (the service was down a while) catches up on its own rather than hold the feed back for all.
    const head = await this.store.headPosition();
    for (const track of this.tracks) {
      if (track.state !== 'joined') continue;
      const behind = await this.store.approximateEventsBetween(track.position, head);
      if (behind !== null && behind > FAR_BEHIND_EVENTS) track.state = 'catching-up';
    }
  }

  /**
   * Each projection with the feed applies its batches at its own pace, from a queue of its own: a
   * projection held up (a lock on its table, a slow statement, a big backlog) holds back no other
   * read model. One more than MAX_QUEUED_BATCHES behind leaves the feed and catches up on its own.
   */
  private deliver(track: Track, batch: readonly RecordedEvent[], to: GlobalPosition, lease: Lease): void {
    if (track.queue.length >= MAX_QUEUED_BATCHES) {
      this.options.log?.warn({ projection: track.projection.name, version: track.projection.version, queued: track.queue.length }, 'projection behind the feed; it catches up on its own meanwhile');
      this.detach(track, lease);
      return;
    }
    track.queue.push({ batch, to });
    track.draining ??= this.drain(track, lease);
  }

  private async drain(track: Track, lease: Lease): Promise<void> {
    try {
      while (track.queue.length > 0 && track.state === 'joined' && !this.stopped && lease.held()) {
        const { batch, to } = track.queue.shift() as QueuedBatch;
        await this.applyFeedBatch(track, batch, to, lease);
      }
    } finally {
      track.draining = null;
    }
  }

  private detach(track: Track, lease: Lease): void {
    track.state = 'catching-up';
    track.queue = [];
    this.catchUp(track, lease);
  }

  /** A batch of the shared feed, for one projection with it: applied, or passed when it changes nothing there. */
  private async applyFeedBatch(track: Track, batch: readonly RecordedEvent[], to: GlobalPosition, lease: Lease): Promise<void> {
    if (comparePositions(track.position, to) >= 0) return;
    const ofItsTypes = batch.filter((event) => comparePositions(event.position, track.position) > 0 && track.types.has(event.type));
    if (!ofItsTypes.some((event) => changes(track.projection, event))) {
      this.pass(track, to, ofItsTypes.length);
      return;
    }
    try {
      await this.commit(track, ofItsTypes, to);
      track.failures = 0;
    } catch (error) {
      this.onBatchFailure(track, error, lease);
    }
  }

  /** Nothing here to change: moved in this process at once, stored with the next commit or within PASSED_CHECKPOINT_MS. */
  private pass(track: Track, to: GlobalPosition, applied: number): void {
    track.passed = { to, applied: (track.passed?.applied ?? 0) + applied };
    track.position = to;
    this.watch.advance(track.projection.name, to);
    this.passedTimer ??= setTimeout(() => {
      this.passedTimer = null;
      this.storingPassed = this.storePassed().catch((error: unknown) => this.options.log?.error({ err: error }, 'could not store passed checkpoints'));
    }, PASSED_CHECKPOINT_MS);
  }

  private async storePassed(): Promise<void> {
    const moves = this.tracks.filter((track) => track.passed !== null && !track.busy).map((track) => ({ track, projection: track.projection, ...(track.passed as { to: GlobalPosition; applied: number }) }));
    if (moves.length === 0) return;
    for (const { track } of moves) track.passed = null;
    await storePassedCheckpoints(this.database.db, moves);
    for (const { projection, to } of moves) this.announcer.announce(projection, to);
  }

  /**
   * One transaction: the events after the stored checkpoint (another writer may have moved it —
   * a rebuild's switch), those it parks, and the checkpoint's move to `to`.
   */
  private async commit(track: Track, events: readonly RecordedEvent[], to: GlobalPosition, options: { atHead?: boolean } = {}): Promise<void> {
    const { projection } = track;
    track.busy = true;
    let settle = () => undefined as void;
    track.inFlight = new Promise<void>((resolve) => (settle = resolve));
    try {
      await this.storingPassed;
      const outcome = await projectionTransaction(this.database.db, projection, async (trx, stored) => {
        const caughtUpNow = options.atHead === true && !stored.caughtUp;
        if (comparePositions(stored.position, to) >= 0) {
          if (caughtUpNow) await moveCheckpoint(trx, projection, stored.position, 0, { caughtUpNow });
          return { position: stored.position, parked: [] as EventFailure[], caughtUpNow };
        }
        const fresh = events.filter((event) => comparePositions(event.position, stored.position) > 0);
        const toApply = fresh.filter((event) => changes(projection, event));
        const parked = await applyIsolatingFailures(trx, projection, toApply, this.options.attemptsPerEvent ?? ATTEMPTS_PER_EVENT);
        for (const failure of parked) await parkEvent(trx, projection, failure);
        const passedApplied = track.passed && comparePositions(track.passed.to, stored.position) > 0 ? track.passed.applied : 0;
        await moveCheckpoint(trx, projection, to, fresh.length - parked.length + passedApplied, { caughtUpNow });
        return { position: to, parked, caughtUpNow };
      });
      track.passed = null;
      track.position = outcome.position;
      if (outcome.caughtUpNow) track.caughtUp = true;
      this.reportParked(projection, outcome.parked);
      this.watch.advance(projection.name, outcome.position);
      this.announcer.announce(projection, outcome.position);
    } finally {
      track.busy = false;
      track.inFlight = null;
      settle();
    }
  }

  private onBatchFailure(track: Track, error: unknown, lease: Lease): void {
    if (this.supersededBy(track, error)) return;
    const { name, version } = track.projection;
    track.failures += 1;
    this.options.log?.error({ err: error, projection: name, version, failures: track.failures }, 'projection failed; it catches up on its own, retrying');
    this.detach(track, lease);
  }

  /** A newer version took over: this release stops projecting its own for good. */
  private supersededBy(track: Track, error: unknown): boolean {
    if (!(error instanceof ProjectionSupersededError)) return false;
    track.state = 'superseded';
    this.options.log?.warn({ projection: track.projection.name, version: track.projection.version }, error.message);
    return true;
  }

  /**
   * A projection behind the feed reads on its own — its own event types, in large batches — to the
   * head, then joins the feed where the feed has got to. A first build ends with fresh planner
   * statistics for its loaded tables.
   */
  private catchUp(track: Track, lease: Lease): void {
    if (track.catchingUp || track.state !== 'catching-up') return;
    track.catchingUp = true;
    const task = (async () => {
      await track.draining;
      await track.inFlight;
      const building = !track.caughtUp && track.projection.kind !== 'reaction';
      while (!this.stopped && lease.held() && track.state === 'catching-up') {
        if (track.failures > 0) await this.pause(backoffMs(track.failures));
        if (this.stopped || !lease.held()) return;
        try {
          if (track.projection.kind === 'reaction' && !track.caughtUp) {
            // A new reaction starts at the head: the past asked for its side effects long ago.
            await this.commit(track, [], later(await this.store.headPosition(), track.position), { atHead: true });
            continue;
          }
          const batch = await readReplayBatch(this.store, track.projection, track.position, this.options.buildBatchSize ?? REPLAY_BATCH_SIZE);
          const atHead = batch.atEnd && comparePositions(batch.to, this.feedPosition) >= 0;
          if (comparePositions(batch.to, track.position) > 0 || (atHead && !track.caughtUp)) await this.commit(track, batch.events, later(batch.to, track.position), { atHead });
          track.failures = 0;
          if (atHead) {
            if (building) await analyzeSchema(this.database.db, projectionSchema(track.projection));
            // In the same turn as the check: the feed cannot deliver a batch in between.
            if (comparePositions(track.position, this.feedPosition) >= 0) track.state = 'joined';
          }
        } catch (error) {
          if (this.supersededBy(track, error)) return;
          track.failures += 1;
          this.options.log?.error({ err: error, projection: track.projection.name, failures: track.failures }, 'projection catch-up failed; retrying');
        }
      }
    })();
    this.catchingUp.add(task);
    void task.finally(() => {
      track.catchingUp = false;
      this.catchingUp.delete(task);
    });
  }

  private reportParked(projection: ProjectionDefinition, parked: readonly EventFailure[]): void {
    const { name, version } = projection;
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

  /** Waits between attempts; stop() ends the wait at once. */
  private pause(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakers.add(done);
    });
  }
}

function earlier(a: GlobalPosition, b: GlobalPosition): GlobalPosition {
  return comparePositions(a, b) <= 0 ? a : b;
}

function later(a: GlobalPosition, b: GlobalPosition): GlobalPosition {
  return comparePositions(a, b) >= 0 ? a : b;
}

/** Groups what the feed already has buffered into batches, without waiting for more. */
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

/** Whether the daemon applies an event of the projection's types: not applied inline already, and changing something there. */
function changes(projection: ProjectionDefinition, event: RecordedEvent): boolean {
  return !appliedInlineTo(event, projection) && projectionChangedBy(projection, event);
}
