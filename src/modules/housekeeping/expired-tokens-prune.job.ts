import { sql } from 'kysely';
import type { Clock } from '../../core/clock.js';
import type { DatabaseConnection } from '../../infrastructure/database/database.js';
import type { JobDefinition } from '../../infrastructure/jobs/job.js';
import { RECEIVED_WEBHOOK_RETENTION_MS } from '../link/webhooks/bank-link-webhook.retention.js';

export const EXPIRED_TOKENS_PRUNE_JOB = 'expired-tokens-prune';

/** Rows deleted per statement: each batch is its own short transaction, holding few row locks. */
export const PRUNE_BATCH = 1000;

/** How often the job runs: each table then holds at most this long of expired rows. */
export const PRUNE_EVERY_MINUTES = 15;

/** A table of short-lived rows, and the column past which a row is of no use to anyone. */
interface Expiring {
  readonly table: 'sandbox_bank_link_tokens' | 'sandbox_bank_public_tokens' | 'sandbox_brokerage_portal_sessions' | 'brokerage_portal_returns' | 'bank_link_webhooks_received' | 'idempotency_keys';
  readonly column: 'expires_at' | 'received_at';
  /** How long after that column's time a row is kept. */
  readonly keptForMs: number;
}

/**
 * Link tokens (4 hours), public tokens (30 minutes) and portal sessions (5 minutes) can no longer be
 * used once expired, used or not; a received webhook's id only matters while a delivery with it can
 * still verify (decision 0028); an Idempotency-Key's kept answer, once its 24 hours are over.
 */
export const EXPIRING: readonly Expiring[] = [
  { table: 'sandbox_bank_link_tokens', column: 'expires_at', keptForMs: 0 },
  { table: 'sandbox_bank_public_tokens', column: 'expires_at', keptForMs: 0 },
  { table: 'sandbox_brokerage_portal_sessions', column: 'expires_at', keptForMs: 0 },
  // A real provider's portal returns (an hour).
  { table: 'brokerage_portal_returns', column: 'expires_at', keptForMs: 0 },
  { table: 'bank_link_webhooks_received', column: 'received_at', keptForMs: RECEIVED_WEBHOOK_RETENTION_MS },
  // An Idempotency-Key's answer, 24 hours after the first request (decision 0040).
  { table: 'idempotency_keys', column: 'expires_at', keptForMs: 0 },
];

export interface ExpiredTokensPruneDependencies {
  readonly database: DatabaseConnection;
  readonly clock: Clock;
  readonly batchSize?: number;
}

/**
 * Every 15 minutes, deletes what has expired from the sandboxes' token tables and the
 * received-webhook ids, in batches of PRUNE_BATCH by an index on the expiry column. Idempotent: a
 * run deletes only what is expired at its clock, so a repeated or retried run finds less or nothing.
 * Runs on several instances at once (the in-process runner schedules it on each) do not wait on
 * each other: a batch skips rows another is deleting.
 */
export function expiredTokensPruneJob(dependencies: ExpiredTokensPruneDependencies): JobDefinition<Record<string, never>> {
  const batchSize = dependencies.batchSize ?? PRUNE_BATCH;
  return {
    name: EXPIRED_TOKENS_PRUNE_JOB,
    schedule: { everyMinutes: PRUNE_EVERY_MINUTES, input: {} },
    async handle() {
      const now = dependencies.clock.now().getTime();
      for (const expiring of EXPIRING) await pruneTable(dependencies.database, expiring, new Date(now - expiring.keptForMs), batchSize);
    },
  };
}

/** Deletes the table's rows whose column is before `cutoff`, a batch at a time; returns how many. */
export async function pruneTable(database: DatabaseConnection, { table, column }: Expiring, cutoff: Date, batchSize: number): Promise<number> {
  let deleted = 0;
  for (;;) {
    const result = await sql`
      DELETE FROM ${sql.table(table)}
      WHERE ctid = ANY(ARRAY(
        SELECT ctid FROM ${sql.table(table)} WHERE ${sql.ref(column)} < ${cutoff} LIMIT ${batchSize} FOR UPDATE SKIP LOCKED
      ))`.execute(database.db);
    const batch = Number(result.numAffectedRows ?? 0n);
    deleted += batch;
    if (batch < batchSize) return deleted;
  }
}
