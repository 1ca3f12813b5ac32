/** A background job: one definition, run by BullMQ (with Redis) or in process (without). */
export interface JobDefinition<Input = unknown> {
  readonly name: string;
  handle(input: Input): Promise<void>;
  /** Runs every day at this UTC time, with this input. */
  readonly schedule?: { readonly dailyAtUtc: `${number}:${number}`; readonly input: Input };
}

export interface EnqueueOptions {
  /** Same id, same job: enqueuing it again while it is waiting or running adds nothing. No ':' (BullMQ's separator). */
  readonly jobId: string;
}

export interface JobRunner {
  readonly kind: 'bullmq' | 'in-process';
  enqueue<Input>(name: string, input: Input, options: EnqueueOptions): Promise<void>;
  /** Waiting, running and failed counts, for operators. */
  counts(): Promise<Record<string, number>>;
  close(): Promise<void>;
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
