import type { Clock } from '../../core/clock.js';
import {
  type AttemptReporting,
  intervalStart,
  type JobDefinition,
  type JobExecutor,
  type JobFinished,
  type JobQueue,
  type JobQueueDepth,
  millisUntilNextRun,
  observedAttempt,
  RETRY_ATTEMPTS,
  RETRY_BASE_DELAY_MS,
} from './job.js';

type QueuedState = 'waiting' | 'delayed' | 'active';

/**
 * Without Redis: the same job definitions, run in this process with retries and schedules (daily
 * or every N minutes). Jobs handed to it live only in memory; the outbox keeps each one until it
 * finishes, and hands it back to a runner once this process is gone.
 */
export class InProcessJobRunner implements JobExecutor {
  readonly kind = 'in-process' as const;
  private readonly definitions: Map<string, JobDefinition<unknown>>;
  /** Every job id taken and not finished, with what it is doing now. */
  private readonly queued = new Map<string, QueuedState>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly running = new Set<Promise<void>>();
  /** Waits cut short by close(), so draining never hangs on a timer that will not fire. */
  private readonly sleepers = new Set<() => void>();
  private jobs: JobQueue | null = null;
  private finished: JobFinished = async () => undefined;
  private failed = 0;
  private completed = 0;
  private closed = false;

  constructor(
    definitions: readonly JobDefinition<never>[],
    private readonly clock: Clock,
    private readonly onError: (name: string, error: unknown) => void,
    private readonly reporting: AttemptReporting = {},
  ) {
    this.definitions = new Map(definitions.map((definition) => [definition.name, definition as JobDefinition<unknown>]));
  }

  start(jobs: JobQueue, finished: JobFinished): void {
    this.jobs = jobs;
    this.finished = finished;
    for (const definition of this.definitions.values()) if (definition.schedule) this.scheduleNext(definition);
  }

  accepting(): boolean {
    return !this.closed && this.jobs !== null;
  }

  async take(name: string, input: unknown, { jobId, delayMs }: { jobId: string; delayMs: number }): Promise<void> {
    const definition = this.definitions.get(name);
    if (!definition) throw new Error(`No job named ${name}`);
    if (this.closed || this.queued.has(jobId)) return;
    this.queued.set(jobId, delayMs > 0 ? 'delayed' : 'waiting');
    const delayed = delayMs > 0 ? this.sleep(delayMs) : Promise.resolve();
    const run = delayed
      .then(() => (this.closed ? undefined : this.attempt(definition, input, 1, jobId)))
      .finally(() => {
        this.queued.delete(jobId);
        this.running.delete(run);
      });
    this.running.add(run);
  }

  /** Handed jobs do not outlive this process: the outbox, not this runner, knows what became of them. */
  async stateOf(): Promise<null> {
    return null;
  }

  onReady(): void {
    // Always ready while open.
  }

  async counts(): Promise<Record<string, number>> {
    return { active: this.queued.size, completed: this.completed, failed: this.failed };
  }

  async queueDepth(): Promise<JobQueueDepth> {
    const queue = { waiting: 0, delayed: 0, active: 0 };
    for (const state of this.queued.values()) queue[state] += 1;
    return { queue, held: 0 };
  }

  /** Resolves when every job taken has finished (tests). */
  async drain(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }

  /** Idle: nothing taken and not finished. */
  get idle(): boolean {
    return this.running.size === 0;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    for (const wake of this.sleepers) wake();
    await this.drain();
  }

  private async attempt(definition: JobDefinition<unknown>, input: unknown, attempt: number, jobId: string): Promise<void> {
    try {
      this.queued.set(jobId, 'active');
      await observedAttempt(this.reporting, { name: definition.name, jobId, attempt, input }, () => definition.handle(input, this.jobs ?? undefined));
      this.completed += 1;
      await this.finished(jobId, {}).catch((error: unknown) => this.onError(definition.name, error));
    } catch (error) {
      this.onError(definition.name, error);
      if (this.closed) return;
      if (attempt >= RETRY_ATTEMPTS) {
        this.failed += 1;
        await this.finished(jobId, { failed: error instanceof Error ? error.message : String(error) }).catch(() => undefined);
        return;
      }
      this.queued.set(jobId, 'delayed');
      await this.sleep(RETRY_BASE_DELAY_MS * 2 ** (attempt - 1));
      if (!this.closed) await this.attempt(definition, input, attempt + 1, jobId);
    }
  }

  private scheduleNext(definition: JobDefinition<unknown>): void {
    const schedule = definition.schedule;
    if (!schedule || this.closed) return;
    this.timer(() => {
      // One job id per run (the minute it fell due, or its interval's start): the same run asked twice starts once.
      const now = this.clock.now();
      const runAt = 'dailyAtUtc' in schedule ? now : intervalStart(schedule.everyMinutes, now);
      void this.take(definition.name, schedule.input, { jobId: `${definition.name}-${runAt.toISOString().slice(0, 16).replace(':', '')}`, delayMs: 0 });
      this.scheduleNext(definition);
    }, millisUntilNextRun(schedule, this.clock.now()));
  }

  /** Resolves after `ms`, or at once when the runner closes. */
  private sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const wake = () => {
        this.sleepers.delete(wake);
        resolve();
      };
      this.sleepers.add(wake);
      this.timer(wake, ms);
    });
  }

  private timer(callback: () => void, ms: number): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      callback();
    }, ms);
    timer.unref();
    this.timers.add(timer);
  }
}
