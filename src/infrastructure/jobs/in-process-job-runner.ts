import type { Clock } from '../../core/clock.js';
import {
  type EnqueueOptions,
  intervalStart,
  type JobAttemptObserver,
  type JobDefinition,
  type JobQueueDepth,
  type JobRunner,
  millisUntilNextRun,
  observedAttempt,
  RETRY_ATTEMPTS,
  RETRY_BASE_DELAY_MS,
} from './job.js';

type QueuedState = 'waiting' | 'delayed' | 'active';

/** Without Redis: the same job definitions, run in this process with retries and schedules (daily or every N minutes). */
export class InProcessJobRunner implements JobRunner {
  readonly kind = 'in-process' as const;
  private readonly definitions: Map<string, JobDefinition<unknown>>;
  /** Every job id enqueued and not finished, with what it is doing now. */
  private readonly queued = new Map<string, QueuedState>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly running = new Set<Promise<void>>();
  /** Waits cut short by close(), so draining never hangs on a timer that will not fire. */
  private readonly sleepers = new Set<() => void>();
  private failed = 0;
  private completed = 0;
  private closed = false;

  constructor(
    definitions: readonly JobDefinition<never>[],
    private readonly clock: Clock,
    private readonly onError: (name: string, error: unknown) => void,
    private readonly observer?: JobAttemptObserver,
  ) {
    this.definitions = new Map(definitions.map((definition) => [definition.name, definition as JobDefinition<unknown>]));
    for (const definition of this.definitions.values()) if (definition.schedule) this.scheduleNext(definition);
  }

  async enqueue<Input>(name: string, input: Input, { jobId, delayMs = 0 }: EnqueueOptions): Promise<void> {
    const definition = this.definitions.get(name);
    if (!definition) throw new Error(`No job named ${name}`);
    if (this.closed || this.queued.has(jobId)) return;
    this.queued.set(jobId, delayMs > 0 ? 'delayed' : 'waiting');
    const delayed = delayMs > 0 ? this.sleep(delayMs) : Promise.resolve();
    const run = delayed.then(() => (this.closed ? undefined : this.attempt(definition, input, 1, jobId))).finally(() => {
      this.queued.delete(jobId);
      this.running.delete(run);
    });
    this.running.add(run);
  }

  async counts(): Promise<Record<string, number>> {
    return { active: this.queued.size, completed: this.completed, failed: this.failed };
  }

  async queueDepth(): Promise<JobQueueDepth> {
    const queue = { waiting: 0, delayed: 0, active: 0 };
    for (const state of this.queued.values()) queue[state] += 1;
    return { queue, held: 0 };
  }

  /** Resolves when every enqueued job has finished (tests and graceful shutdown). */
  async drain(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
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
      await observedAttempt(this.observer, definition.name, () => definition.handle(input, this));
      this.completed += 1;
    } catch (error) {
      this.onError(definition.name, error);
      if (attempt >= RETRY_ATTEMPTS || this.closed) {
        this.failed += 1;
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
      void this.enqueue(definition.name, schedule.input, { jobId: `${definition.name}-${runAt.toISOString().slice(0, 16).replace(':', '')}` });
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
