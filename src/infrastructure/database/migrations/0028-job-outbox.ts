import { type Kysely, sql } from 'kysely';

/**
 * The job outbox (decision 0038): every job a request, an event or another job asks for is a row
 * here, written before anyone is told it is queued — by a reaction in the transaction that moves
 * its checkpoint past the event that caused it — and handed to the queue (BullMQ, or this
 * process's runner) from here. A row lives until its job completes: a Redis outage, a restart or
 * a kill -9 delays a job, never drops it. `handed_to_*` name the connection of the relay that
 * handed it on (an in-process runner's jobs go back to the outbox when that connection is gone).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE job_outbox (
      job_id text PRIMARY KEY,
      name text NOT NULL,
      input jsonb NOT NULL,
      run_at timestamptz NOT NULL DEFAULT now(),
      cause jsonb,
      created_at timestamptz NOT NULL DEFAULT now(),
      handed_at timestamptz,
      handed_to_pid integer,
      handed_to_application text,
      failed_at timestamptz,
      last_error text
    )`.execute(db);
  await sql`CREATE INDEX job_outbox_to_hand ON job_outbox (created_at) WHERE handed_at IS NULL AND failed_at IS NULL`.execute(db);
  await sql`CREATE INDEX job_outbox_handed ON job_outbox (handed_at) WHERE handed_at IS NOT NULL AND failed_at IS NULL`.execute(db);
}
