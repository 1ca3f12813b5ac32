import { sql, type Kysely } from 'kysely';
import type { Database } from '../database/schema.js';

/** The `job_outbox` row (migration 0028). */
export interface JobOutboxTable {
  job_id: string;
  name: string;
  input: unknown;
  run_at: Date;
  cause: unknown;
  created_at: Date;
  handed_at: Date | null;
  handed_to_pid: number | null;
  handed_to_application: string | null;
  failed_at: Date | null;
  last_error: string | null;
}

/** Why a job was asked for: the event (for a reaction's) or the request behind it. */
export interface JobCause {
  readonly eventId?: string;
  readonly eventType?: string;
  readonly requestId?: string;
  readonly correlationId?: string;
}

export interface OutboxJob {
  readonly name: string;
  readonly input: unknown;
  /** Same id, same job: asking again while it is in the outbox adds nothing. No ':' (BullMQ's separator). */
  readonly jobId: string;
  /** Not sooner than this many milliseconds after it is written (a debounce); default 0. The database's clock counts them. */
  readonly delayMs?: number;
  readonly cause?: JobCause;
}

/** Tells relays (in every process) that jobs were written; sent after the commit that wrote them. */
export const JOB_OUTBOX_CHANNEL = 'ledgerline_job_outbox';

/**
 * Writes jobs into the outbox in `db`'s transaction — a reaction's, with the checkpoint move past
 * the event that asked for them; or a statement of its own for a request. A job id already there
 * keeps its row (and its time): asking twice queues once.
 */
export async function writeJobs(db: Kysely<Database>, jobs: readonly OutboxJob[]): Promise<void> {
  if (jobs.length === 0) return;
  const rows = jobs.map((job) => ({ job_id: job.jobId, name: job.name, input: job.input ?? null, delay_ms: Math.max(0, Math.round(job.delayMs ?? 0)), cause: job.cause ?? null }));
  await sql`
    INSERT INTO job_outbox (job_id, name, input, run_at, cause)
    SELECT r.job_id, r.name, coalesce(r.input, 'null'::jsonb), now() + r.delay_ms * interval '1 millisecond', r.cause
      FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS r(job_id text, name text, input jsonb, delay_ms bigint, cause jsonb)
    ON CONFLICT (job_id) DO NOTHING`.execute(db);
}
