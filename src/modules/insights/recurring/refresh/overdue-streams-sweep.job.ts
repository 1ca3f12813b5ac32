import { sql } from 'kysely';
import type { JobDefinition } from '../../../../infrastructure/jobs/job.js';
import type { Runtime } from '../../../../infrastructure/runtime/runtime.js';
import { queueRecurringRefresh } from './recurring-refresh.job.js';

export const OVERDUE_STREAMS_SWEEP_JOB = 'recurring-overdue-sweep';

const PAGE = 500;

/**
 * A stream stops by nothing happening, so no transaction change queues the refresh that
 * tombstones it. Every day this queues a refresh for each user with a stream past its last
 * active day (the list hides such a stream already; the refresh records TOMBSTONED).
 */
export function overdueStreamsSweepJob(runtime: Pick<Runtime, 'database' | 'clock' | 'config'>): JobDefinition<Record<string, never>> {
  return {
    name: OVERDUE_STREAMS_SWEEP_JOB,
    schedule: { dailyAtUtc: '00:30', input: {} },
    async handle(_input, jobs) {
      if (!jobs) throw new Error(`${OVERDUE_STREAMS_SWEEP_JOB} queues refreshes through the runner that runs it, and was given none`);
      const now = runtime.clock.now();
      // A day's margin: "today" is the user's own day, up to 14 hours ahead of or behind UTC.
      const before = new Date(now.getTime() - 86_400_000).toISOString().slice(0, 10);
      let after = '00000000-0000-0000-0000-000000000000';
      for (;;) {
        const { rows } = await sql<{ user_id: string }>`
          SELECT DISTINCT user_id FROM recurring_streams
           WHERE status <> 'TOMBSTONED' AND active_until < ${before} AND user_id > ${after}
           ORDER BY user_id LIMIT ${PAGE}`.execute(runtime.database.db);
        for (const { user_id } of rows) await queueRecurringRefresh(jobs, user_id, now, 0);
        if (rows.length < PAGE) return;
        after = rows[rows.length - 1].user_id;
      }
    },
  };
}
