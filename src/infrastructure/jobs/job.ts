import type { JobCause } from './job-outbox.js';

/** A background job: one definition, run by BullMQ (with Redis) or in process (without). */
export interface JobDefinition<Input = unknown> {
  readonly name: string;
  /** `jobs`: the runner running it (both runners always pass it), for a job that queues others. */
  handle(input: Input, jobs?: JobQueue): Promise<void>;
  readonly schedule?: JobSchedule<Input>;
}

/**
 * When a job runs on its own, with this input: every day at a UTC time, or every so many minutes.
 * In process, interval runs fall on multiples of the interval since the epoch; BullMQ runs a new
 * interval schedule at once and then every interval after that run.
 */
export type JobSchedule<Input> =
  | { readonly dailyAtUtc: `${number}:${number}`; readonly input: Input }
  | { readonly everyMinutes: number; readonly input: Input };

export interface EnqueueOptions {
  /** Same id, same job: enqueuing it again while it is waiting or running adds nothing. No ':' (BullMQ's separator). */
  readonly jobId: string;
  /** What asked for it, recorded with it in the outbox. */
  readonly cause?: JobCause;
  /**
   * Runs the job no sooner than this many milliseconds from now; enqueuing the same id meanwhile
   * adds nothing, so every request of a burst shares the one run that comes after it (debouncing).
   */
  readonly delayMs?: number;
}

/** Queues a job: once this resolves, the job is recorded in PostgreSQL (the outbox, decision 0038) and will run. */
export interface JobQueue {
  enqueue<Input>(name: string, input: Input, options: EnqueueOptions): Promise<void>;
}

export interface JobRunner extends JobQueue {
  readonly kind: 'bullmq' | 'in-process';
  /** Waiting, running and failed counts, for operators. */
  counts(): Promise<Record<string, number>>;
  /** Jobs not yet finished, by state, for metrics: one cheap call (BullMQ: one round trip to Redis); never throws. */
  queueDepth(): Promise<JobQueueDepth>;
  close(): Promise<void>;
}

/** What became of a job handed to an executor: `completed` or `failed` (its retries used up). */
export type JobFinished = (jobId: string, outcome: { readonly failed?: string }) => Promise<void>;

/** A handed job as its executor knows it; a failed one with the error of its last attempt. */
export type HandedJobState = { readonly state: 'missing' | 'pending' | 'completed' } | { readonly state: 'failed'; readonly reason: string };

/**
 * What runs jobs handed to it from the outbox: BullMQ over Redis, or this process. `take` throws
 * when it cannot take the job now (Redis away); the outbox keeps it and hands it again later.
 */
export interface JobExecutor {
  readonly kind: 'bullmq' | 'in-process';
  /** Starts running jobs; a running job queues others through `queue` (the outbox); `finished` hears of every handed job's end. */
  start(queue: JobQueue, finished: JobFinished): void;
  accepting(): boolean;
  take(name: string, input: unknown, options: { readonly jobId: string; readonly delayMs: number }): Promise<void>;
  /**
   * What the executor knows of a job handed to it: `missing` when it has no trace of it (Redis
   * restarted empty), so the outbox hands it again. Null where handed jobs do not outlive the process.
   */
  stateOf(jobId: string): Promise<HandedJobState | null>;
  /** Called each time the executor (again) can take jobs: Redis came back. */
  onReady(listener: () => void): void;
  counts(): Promise<Record<string, number>>;
  queueDepth(): Promise<JobQueueDepth>;
  close(): Promise<void>;
}

/**
 * `queue`: jobs by state — `waiting`: due and not started; `delayed`: not due yet (a debounce or a
 * retry's backoff); `active`: running — or null when it cannot be read (Redis unreachable).
 * `held`: jobs kept in this process while Redis is unreachable (BullMQ only), known even then.
 */
export interface JobQueueDepth {
  readonly queue: { readonly waiting: number; readonly delayed: number; readonly active: number } | null;
  readonly held: number;
}

/** Told how each attempt at a job ended and how long it took, for metrics. */
export interface JobAttemptObserver {
  attemptEnded(name: string, outcome: 'completed' | 'failed', seconds: number): void;
}

export interface JobLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

export interface AttemptReporting {
  readonly observer?: JobAttemptObserver;
  readonly log?: JobLog;
}

/**
 * Runs one attempt of a job, logs its start and its end (name, id, attempt, duration, outcome,
 * correlation id) and tells the observer how it ended; the job's own error is rethrown.
 */
export async function observedAttempt(reporting: AttemptReporting, job: { readonly name: string; readonly jobId: string; readonly attempt: number; readonly input: unknown }, attempt: () => Promise<void>): Promise<void> {
  const started = process.hrtime.bigint();
  const seconds = () => Number(process.hrtime.bigint() - started) / 1e9;
  const fields = { job: job.name, jobId: job.jobId, attempt: job.attempt, correlationId: correlationIdOf(job.input) };
  reporting.log?.info(fields, 'job started');
  try {
    await attempt();
  } catch (error) {
    const elapsed = seconds();
    reporting.observer?.attemptEnded(job.name, 'failed', elapsed);
    reporting.log?.warn({ ...fields, durationMs: Math.round(elapsed * 1000), outcome: 'failed', err: error }, 'job failed');
    throw error;
  }
  const elapsed = seconds();
  reporting.observer?.attemptEnded(job.name, 'completed', elapsed);
  reporting.log?.info({ ...fields, durationMs: Math.round(elapsed * 1000), outcome: 'completed' }, 'job finished');
}

function correlationIdOf(input: unknown): string | undefined {
  const trace = (input as { trace?: { correlationId?: unknown } } | null)?.trace;
  return typeof trace?.correlationId === 'string' ? trace.correlationId : undefined;
}

export const RETRY_ATTEMPTS = 5;
export const RETRY_BASE_DELAY_MS = 1000;

export function cronOf(dailyAtUtc: string): string {
  const [hour, minute] = dailyAtUtc.split(':').map(Number);
  return `${minute} ${hour} * * *`;
}

/** Milliseconds from `now` to the next `HH:MM` UTC. */
export function millisUntilNext(dailyAtUtc: string, now: Date): number {
  const [hour, minute] = dailyAtUtc.split(':').map(Number);
  const next = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), hour, minute));
  if (next.getTime() <= now.getTime()) next.setUTCDate(next.getUTCDate() + 1);
  return next.getTime() - now.getTime();
}

/** Milliseconds from `now` to the schedule's next run. */
export function millisUntilNextRun(schedule: JobSchedule<unknown>, now: Date): number {
  if ('dailyAtUtc' in schedule) return millisUntilNext(schedule.dailyAtUtc, now);
  const every = intervalMillis(schedule.everyMinutes);
  return every - (now.getTime() % every);
}

/** The start of the interval `now` falls in: what names one run of an interval schedule. */
export function intervalStart(everyMinutes: number, now: Date): Date {
  const every = intervalMillis(everyMinutes);
  return new Date(Math.floor(now.getTime() / every) * every);
}

export function intervalMillis(everyMinutes: number): number {
  if (!Number.isInteger(everyMinutes) || everyMinutes < 1) throw new RangeError(`An interval schedule runs every whole number of minutes from 1, not ${everyMinutes}`);
  return everyMinutes * 60_000;
}
