import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import {
  type AttemptReporting,
  cronOf,
  type HandedJobState,
  intervalMillis,
  type JobDefinition,
  type JobExecutor,
  type JobFinished,
  type JobQueue,
  type JobQueueDepth,
  type JobSchedule,
  observedAttempt,
  RETRY_ATTEMPTS,
  RETRY_BASE_DELAY_MS,
} from './job.js';
import { failFastRedisOptions, isRedisConnectionError, workerRedisOptions } from './redis-options.js';

const QUEUE = 'ledgerline';
const RESYNC_DELAY_MS = 1000;
const CLOSE_WAIT_MS = 5000;
/** A worker that never reached Redis may never finish closing: it is left behind after this. */
const FORCED_CLOSE_WAIT_MS = 1000;

export interface BullMqJobRunnerOptions extends AttemptReporting {
  readonly onError: (name: string, error: unknown) => void;
  readonly log: Logger;
  /** Redis key prefix; tests use their own. */
  readonly prefix?: string;
}

/**
 * With Redis: jobs handed from the outbox spread over every instance's worker, retried with
 * backoff, visible in Redis. Redis may be down at boot or go away later; neither stops the
 * service: starting never waits for Redis, `take` fails at once while it is away (the outbox
 * keeps the job), and every time the connection becomes ready the schedules (daily and interval)
 * are upserted again — a Redis that restarted empty has forgotten them — and the outbox is told
 * to hand over what waited. The worker's own connections reconnect with the same capped backoff.
 */
export class BullMqJobRunner implements JobExecutor {
  readonly kind = 'bullmq' as const;
  private worker: Worker | null = null;
  private schedulesInSync = false;
  private syncing: Promise<void> | null = null;
  private resyncTimer: NodeJS.Timeout | null = null;
  private outageSince: number | null = null;
  private closed = false;
  private readonly readyListeners: (() => void)[] = [];

  private constructor(
    private readonly redisUrl: string,
    private readonly redis: Redis,
    private readonly queue: Queue,
    private readonly definitions: ReadonlyMap<string, JobDefinition<unknown>>,
    private readonly options: BullMqJobRunnerOptions,
  ) {
    redis.on('error', (error: unknown) => this.noteOutage(error));
    redis.on('ready', () => this.onRedisReady());
    queue.on('error', (error) => (isRedisConnectionError(error) ? this.noteOutage(error) : options.onError('queue', error)));
  }

  /** Returns at once: the connections are made (and remade) in the background. */
  static create(redisUrl: string, definitions: readonly JobDefinition<never>[], options: BullMqJobRunnerOptions): BullMqJobRunner {
    // The queue's calls are made on behalf of a request or a health probe, so they fail fast.
    // BullMQ's version check is skipped because it runs once, on the first connection, and a
    // Redis lost in that instant would leave the queue unusable for good.
    const redis = new Redis(redisUrl, failFastRedisOptions());
    const queue = new Queue(QUEUE, { connection: redis, prefix: options.prefix ?? 'ledgerline', skipVersionCheck: true });
    return new BullMqJobRunner(redisUrl, redis, queue, new Map(definitions.map((definition) => [definition.name, definition as JobDefinition<unknown>])), options);
  }

  start(jobs: JobQueue, finished: JobFinished): void {
    const worker = new Worker(
      QUEUE,
      async (job) => {
        const definition = this.definitions.get(job.name);
        if (!definition) throw new Error(`No job named ${job.name}`);
        await observedAttempt(this.options, { name: definition.name, jobId: job.id ?? '?', attempt: job.attemptsMade + 1, input: job.data }, () => definition.handle(job.data, jobs));
      },
      // runRetryDelay: after a lost connection the worker asks again within a second of Redis returning (default 15 s).
      { connection: { url: this.redisUrl, ...workerRedisOptions() }, prefix: this.options.prefix ?? 'ledgerline', concurrency: 4, runRetryDelay: 1000 },
    );
    worker.on('error', (error) => (isRedisConnectionError(error) ? this.noteOutage(error) : this.options.onError('worker', error)));
    worker.on('completed', (job) => void finished(job.id ?? '', {}).catch((error: unknown) => this.options.onError(job.name, error)));
    worker.on('failed', (job, error) => {
      this.options.onError(job?.name ?? 'unknown', error);
      // Its last attempt: the job is given up on (BullMQ keeps it among the failed).
      if (job && job.attemptsMade >= (job.opts.attempts ?? 1)) void finished(job.id ?? '', { failed: error.message }).catch(() => undefined);
    });
    this.worker = worker;
  }

  accepting(): boolean {
    return !this.closed && this.redis.status === 'ready';
  }

  async take(name: string, input: unknown, { jobId, delayMs }: { jobId: string; delayMs: number }): Promise<void> {
    if (!this.definitions.has(name)) throw new Error(`No job named ${name}`);
    if (this.redis.status !== 'ready') throw new Error(`Redis is unavailable (${this.redis.status})`);
    await this.queue.add(name, input, {
      jobId,
      ...(delayMs > 0 ? { delay: delayMs } : {}),
      attempts: RETRY_ATTEMPTS,
      backoff: { type: 'exponential', delay: RETRY_BASE_DELAY_MS },
      removeOnComplete: { age: 24 * 3600, count: 1000 },
      removeOnFail: { age: 7 * 24 * 3600 },
    });
  }

  async stateOf(jobId: string): Promise<HandedJobState> {
    const job = await this.queue.getJob(jobId);
    if (!job) return { state: 'missing' };
    const state = await job.getState();
    if (state === 'completed') return { state: 'completed' };
    if (state === 'failed') return { state: 'failed', reason: job.failedReason || 'failed in the queue' };
    return { state: state === 'unknown' ? 'missing' : 'pending' };
  }

  onReady(listener: () => void): void {
    this.readyListeners.push(listener);
  }

  async counts(): Promise<Record<string, number>> {
    // No waiting for a reconnect: the health probe must learn "down" now.
    if (this.redis.status !== 'ready') throw new Error(`Redis is unavailable (${this.redis.status})`);
    return this.queue.getJobCounts('waiting', 'active', 'delayed', 'completed', 'failed');
  }

  /** The whole queue's (every instance's) jobs by state, in one round trip; BullMQ keeps no count per job name. */
  async queueDepth(): Promise<JobQueueDepth> {
    if (this.redis.status !== 'ready') return { queue: null, held: 0 };
    try {
      const counts = await this.queue.getJobCounts('waiting', 'prioritized', 'delayed', 'active');
      return { queue: { waiting: (counts.waiting ?? 0) + (counts.prioritized ?? 0), delayed: counts.delayed ?? 0, active: counts.active ?? 0 }, held: 0 };
    } catch {
      return { queue: null, held: 0 };
    }
  }

  /**
   * Waits for running jobs while Redis answers (5 s at most); with Redis away nothing is waited for
   * beyond a moment: the outbox still has every job that did not finish.
   */
  async close(): Promise<void> {
    this.closed = true;
    if (this.resyncTimer) clearTimeout(this.resyncTimer);
    const worker = this.worker;
    const graceful = this.redis.status === 'ready' && (await within(CLOSE_WAIT_MS, Promise.all([worker?.close(), this.queue.close()])));
    if (!graceful) await within(FORCED_CLOSE_WAIT_MS, Promise.allSettled([worker?.close(true), worker?.disconnect(), this.queue.close()]));
    this.redis.disconnect();
  }

  private noteOutage(error: unknown): void {
    if (this.closed || this.outageSince !== null) return;
    this.outageSince = Date.now();
    this.options.log.warn({ err: error }, 'Redis unavailable: jobs wait in the outbox and the worker waits until it returns');
  }

  private onRedisReady(): void {
    if (this.closed) return;
    if (this.outageSince !== null) {
      this.options.log.info({ outageMs: Date.now() - this.outageSince }, 'Redis is back: handing over the outbox and the schedules');
      this.outageSince = null;
    }
    this.schedulesInSync = false;
    this.resync();
    for (const listener of this.readyListeners) listener();
  }

  /** Upserts the schedules (once per connection); on failure, tries again shortly. */
  private resync(): void {
    if (this.closed || this.syncing || this.schedulesInSync) return;
    this.syncing = (async () => {
      try {
        await this.upsertSchedules();
        this.schedulesInSync = true;
      } catch (error) {
        this.noteOutage(error);
        this.resyncTimer = setTimeout(() => {
          this.resyncTimer = null;
          if (this.redis.status === 'ready') this.resync();
        }, RESYNC_DELAY_MS);
        this.resyncTimer.unref();
      } finally {
        this.syncing = null;
      }
    })();
  }

  private async upsertSchedules(): Promise<void> {
    for (const definition of this.definitions.values()) {
      if (!definition.schedule) {
        // Redis keeps a scheduler until told otherwise: a job whose schedule was turned off must stop.
        await this.queue.removeJobScheduler(definition.name);
        continue;
      }
      await this.queue.upsertJobScheduler(definition.name, repeatOf(definition.schedule), {
        name: definition.name,
        data: definition.schedule.input,
        opts: { attempts: RETRY_ATTEMPTS, backoff: { type: 'exponential', delay: RETRY_BASE_DELAY_MS } },
      });
    }
  }
}

/** BullMQ runs a new `every` scheduler at once, then every interval; upserting it again (a reconnect) adds no run. */
function repeatOf(schedule: JobSchedule<unknown>): { pattern: string; tz: string } | { every: number } {
  return 'dailyAtUtc' in schedule ? { pattern: cronOf(schedule.dailyAtUtc), tz: 'UTC' } : { every: intervalMillis(schedule.everyMinutes) };
}

/** Whether `work` settled within `ms` (its failure counts as settled: closing goes on either way). */
async function within(ms: number, work: Promise<unknown>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const settled = await Promise.race([work.then(() => true, () => true), new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)))]);
  clearTimeout(timer);
  return settled;
}
