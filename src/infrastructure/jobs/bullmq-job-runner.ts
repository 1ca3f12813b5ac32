import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import {
  cronOf,
  type EnqueueOptions,
  intervalMillis,
  type JobAttemptObserver,
  type JobDefinition,
  type JobQueue,
  type JobQueueDepth,
  type JobRunner,
  type JobSchedule,
  observedAttempt,
  RETRY_ATTEMPTS,
  RETRY_BASE_DELAY_MS,
} from './job.js';
import { failFastRedisOptions, isRedisConnectionError, workerRedisOptions } from './redis-options.js';

const QUEUE = 'ledgerline';
/** Beyond this many distinct jobs held during an outage, enqueue refuses rather than grow without bound. */
const MAX_HELD_JOBS = 10_000;
const RESYNC_DELAY_MS = 1000;
const CLOSE_WAIT_MS = 5000;

export interface BullMqJobRunnerOptions {
  readonly onError: (name: string, error: unknown) => void;
  readonly log: Logger;
  /** Redis key prefix; tests use their own. */
  readonly prefix?: string;
  /** Told of every attempt this process's worker makes. */
  readonly observer?: JobAttemptObserver;
}

interface HeldJob {
  readonly name: string;
  readonly input: unknown;
  /** When the job may run (epoch ms): a job held through an outage keeps its time, not its delay. */
  readonly notBefore?: number;
}

/**
 * With Redis: jobs spread over every instance's worker, retried with backoff, visible in Redis.
 *
 * Redis may be down at boot or go away later; neither stops the service. Starting never waits
 * for Redis. A job enqueued while Redis is unreachable is held in this process, keyed by its job
 * id (so holding it twice holds it once), and pushed to BullMQ in order when Redis answers again —
 * rather than run here at once, so that BullMQ still runs each job id once across all instances,
 * with its retries and its record. Pushing is idempotent too: a push that timed out but reached
 * Redis is pushed again under the same id and BullMQ ignores the second. Every time the connection
 * becomes ready the schedules (daily and interval) are upserted again, since a Redis that restarted
 * empty has forgotten them, and the schedule of a job that no longer has one (an interval set to
 * 0) is removed. The worker's own connections reconnect with the same capped backoff.
 */
export class BullMqJobRunner implements JobRunner {
  readonly kind = 'bullmq' as const;
  private readonly held = new Map<string, HeldJob>();
  private schedulesInSync = false;
  private syncing: Promise<void> | null = null;
  private resyncTimer: NodeJS.Timeout | null = null;
  private outageSince: number | null = null;
  private closed = false;

  private constructor(
    private readonly redis: Redis,
    private readonly queue: Queue,
    private readonly worker: Worker,
    private readonly definitions: ReadonlyMap<string, JobDefinition<unknown>>,
    private readonly options: BullMqJobRunnerOptions,
  ) {
    redis.on('error', (error: unknown) => this.noteOutage(error));
    redis.on('ready', () => this.onRedisReady());
    const routeError = (source: string) => (error: unknown) => (isRedisConnectionError(error) ? this.noteOutage(error) : options.onError(source, error));
    queue.on('error', routeError('queue'));
    worker.on('error', routeError('worker'));
    worker.on('failed', (job, error) => options.onError(job?.name ?? 'unknown', error));
  }

  /** Returns at once: the connections are made (and remade) in the background. */
  static start(redisUrl: string, definitions: readonly JobDefinition<never>[], options: BullMqJobRunnerOptions): BullMqJobRunner {
    const prefix = options.prefix ?? 'ledgerline';
    const byName = new Map(definitions.map((definition) => [definition.name, definition as JobDefinition<unknown>]));
    // The queue's calls are made on behalf of a request or a health probe, so they fail fast.
    // BullMQ's version check is skipped because it runs once, on the first connection, and a
    // Redis lost in that instant would leave the queue unusable for good.
    const redis = new Redis(redisUrl, failFastRedisOptions());
    const queue = new Queue(QUEUE, { connection: redis, prefix, skipVersionCheck: true });
    // The worker runs jobs only once the runner below exists; a job that queues others goes through it.
    let runner: JobQueue | null = null;
    const worker = new Worker(
      QUEUE,
      async (job) => {
        const definition = byName.get(job.name);
        if (!definition || !runner) throw new Error(`No job named ${job.name}`);
        const jobs = runner;
        await observedAttempt(options.observer, definition.name, () => definition.handle(job.data, jobs));
      },
      // runRetryDelay: after a lost connection the worker asks again within a second of Redis returning (default 15 s).
      { connection: { url: redisUrl, ...workerRedisOptions() }, prefix, concurrency: 4, runRetryDelay: 1000 },
    );
    runner = new BullMqJobRunner(redis, queue, worker, byName, options);
    return runner as BullMqJobRunner;
  }

  async enqueue<Input>(name: string, input: Input, { jobId, delayMs = 0 }: EnqueueOptions): Promise<void> {
    if (!this.definitions.has(name)) throw new Error(`No job named ${name}`);
    const job: HeldJob = delayMs > 0 ? { name, input, notBefore: Date.now() + delayMs } : { name, input };
    if (this.redis.status === 'ready' && this.held.size === 0) {
      try {
        await this.push(jobId, job);
        return;
      } catch (error) {
        if (!isRedisConnectionError(error)) throw error;
        this.noteOutage(error);
      }
    }
    this.hold(jobId, job);
  }

  async counts(): Promise<Record<string, number>> {
    // No waiting for a reconnect: the health probe must learn "down" now.
    if (this.redis.status !== 'ready') throw new Error(`Redis is unavailable (${this.redis.status})`);
    const counts = await this.queue.getJobCounts('waiting', 'active', 'delayed', 'completed', 'failed');
    return { ...counts, held: this.held.size };
  }

  /** The whole queue's (every instance's) jobs by state, in one round trip; BullMQ keeps no count per job name. */
  async queueDepth(): Promise<JobQueueDepth> {
    const held = this.held.size;
    if (this.redis.status !== 'ready') return { queue: null, held };
    try {
      const counts = await this.queue.getJobCounts('waiting', 'prioritized', 'delayed', 'active');
      return { queue: { waiting: (counts.waiting ?? 0) + (counts.prioritized ?? 0), delayed: counts.delayed ?? 0, active: counts.active ?? 0 }, held };
    } catch {
      return { queue: null, held };
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.resyncTimer) clearTimeout(this.resyncTimer);
    let timer: NodeJS.Timeout | undefined;
    const gave = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), CLOSE_WAIT_MS)));
    const outcome = await Promise.race([Promise.all([this.worker.close(), this.queue.close()]).then(() => 'closed' as const), gave]);
    clearTimeout(timer);
    if (outcome === 'timeout') await Promise.allSettled([this.worker.close(true), this.worker.disconnect()]);
    this.redis.disconnect();
    if (this.held.size > 0) this.options.log.warn({ heldJobIds: [...this.held.keys()] }, 'closing while Redis is unavailable: these held jobs were not pushed');
  }

  private hold(jobId: string, job: HeldJob): void {
    if (this.held.has(jobId)) return;
    if (this.held.size >= MAX_HELD_JOBS) throw new Error(`Redis is unavailable and ${MAX_HELD_JOBS} jobs are already held; not accepting ${jobId}`);
    this.held.set(jobId, job);
    if (this.redis.status === 'ready') this.resync();
  }

  private async push(jobId: string, { name, input, notBefore }: HeldJob): Promise<void> {
    await this.queue.add(name, input, {
      jobId,
      ...(notBefore === undefined ? {} : { delay: Math.max(0, notBefore - Date.now()) }),
      attempts: RETRY_ATTEMPTS,
      backoff: { type: 'exponential', delay: RETRY_BASE_DELAY_MS },
      removeOnComplete: { age: 24 * 3600, count: 1000 },
      removeOnFail: { age: 7 * 24 * 3600 },
    });
  }

  private noteOutage(error: unknown): void {
    if (this.closed || this.outageSince !== null) return;
    this.outageSince = Date.now();
    this.options.log.warn({ err: error }, 'Redis unavailable: jobs are held in this process and the worker waits until it returns');
  }

  private onRedisReady(): void {
    if (this.closed) return;
    if (this.outageSince !== null) {
      this.options.log.info({ outageMs: Date.now() - this.outageSince, heldJobs: this.held.size }, 'Redis is back: pushing held jobs and schedules');
      this.outageSince = null;
    }
    this.schedulesInSync = false;
    this.resync();
  }

  /** Upserts the schedules (once per connection) and pushes held jobs; on failure, tries again shortly. */
  private resync(): void {
    if (this.closed || this.syncing) return;
    this.syncing = (async () => {
      let failed = false;
      try {
        if (!this.schedulesInSync) {
          await this.upsertSchedules();
          this.schedulesInSync = true;
        }
        for (const [jobId, job] of this.held) {
          try {
            await this.push(jobId, job);
          } catch (error) {
            if (isRedisConnectionError(error)) throw error;
            // A job BullMQ refuses would block every job behind it: report it and let it go.
            this.options.onError(job.name, error);
          }
          this.held.delete(jobId);
        }
      } catch (error) {
        failed = true;
        this.noteOutage(error);
        this.resyncTimer = setTimeout(() => {
          this.resyncTimer = null;
          if (this.redis.status === 'ready') this.resync();
        }, RESYNC_DELAY_MS);
        this.resyncTimer.unref();
      } finally {
        this.syncing = null;
      }
      // A job held while the loop was finishing would otherwise wait for the next reconnect.
      if (!failed && this.held.size > 0 && this.redis.status === 'ready') this.resync();
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
