import type { Kysely } from 'kysely';
import type { Database, ImportStatus } from '../../infrastructure/database/schema.js';
import { type OutboxJob, writeJobs } from '../../infrastructure/jobs/job-outbox.js';

export const RULE_APPLICATION_STATUSES = ['queued', 'running', 'completed', 'failed'] as const satisfies readonly ImportStatus[];

/** An application as GET /rules/applications/{applicationId} answers it. */
export interface RuleApplication {
  readonly id: string;
  readonly ruleId: string;
  readonly status: ImportStatus;
  readonly matched: number;
  readonly changed: number;
  readonly error: string | null;
  readonly createdAt: string;
  readonly completedAt: string | null;
}

/** The application's row and its job, in one transaction: nobody hears it was queued before both are stored. */
export async function recordApplication(
  db: Kysely<Database>,
  row: { readonly id: string; readonly userId: string; readonly ruleId: string; readonly correlationId: string; readonly createdAt: Date },
  job: OutboxJob,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('rule_applications')
      .values({ id: row.id, user_id: row.userId, rule_id: row.ruleId, status: 'queued', after_transaction_id: null, error: null, correlation_id: row.correlationId, created_at: row.createdAt, completed_at: null })
      .execute();
    await writeJobs(trx, [job]);
  });
}

export async function applicationOf(db: Kysely<Database>, userId: string, applicationId: string): Promise<RuleApplication | undefined> {
  const row = await db.selectFrom('rule_applications').selectAll().where('id', '=', applicationId).where('user_id', '=', userId).executeTakeFirst();
  return (
    row && {
      id: row.id,
      ruleId: row.rule_id,
      status: row.status,
      matched: row.matched,
      changed: row.changed,
      error: row.error,
      createdAt: row.created_at.toISOString(),
      completedAt: row.completed_at?.toISOString() ?? null,
    }
  );
}

/** What the job needs to resume: where it got to and its counts so far. */
export async function applicationToRun(db: Kysely<Database>, userId: string, applicationId: string) {
  return db
    .selectFrom('rule_applications')
    .select(['rule_id', 'status', 'matched', 'changed', 'after_transaction_id', 'correlation_id'])
    .where('id', '=', applicationId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
}

/** A page done: its last transaction and the counts after it, in one write, so a resumed run neither skips nor recounts. */
export async function recordApplicationProgress(db: Kysely<Database>, applicationId: string, progress: { readonly afterTransactionId: string; readonly matched: number; readonly changed: number }): Promise<void> {
  await db
    .updateTable('rule_applications')
    .set({ status: 'running', after_transaction_id: progress.afterTransactionId, matched: progress.matched, changed: progress.changed })
    .where('id', '=', applicationId)
    .execute();
}

export async function markApplicationFinished(db: Kysely<Database>, applicationId: string, outcome: { readonly error?: string }, at: Date): Promise<void> {
  await db
    .updateTable('rule_applications')
    .set({ status: outcome.error === undefined ? 'completed' : 'failed', error: outcome.error ?? null, completed_at: at })
    .where('id', '=', applicationId)
    .execute();
}
