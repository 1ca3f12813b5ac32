import { isoDate } from '../../core/clock.js';
import { newId } from '../../core/ids.js';
import { handleCommand } from '../../infrastructure/event-store/handle-command.js';
import type { JobDefinition } from '../../infrastructure/jobs/job.js';
import type { Runtime } from '../../infrastructure/runtime/runtime.js';
import { accountStreamId } from './account.js';
import { accountDecider } from './account.decider.js';

const PAGE = 500;

/**
 * Every night, every open non-brokerage account gets the day's balance snapshot. Idempotent:
 * an account already snapshotted that day is left alone, so a retried or repeated run adds nothing.
 */
export function nightlyBalanceSnapshotsJob(runtime: Pick<Runtime, 'database' | 'eventStore' | 'clock'>): JobDefinition<Record<string, never>> {
  return {
    name: 'balance-snapshots-nightly',
    schedule: { dailyAtUtc: '23:55', input: {} },
    async handle() {
      const now = runtime.clock.now();
      const date = isoDate(now);
      const runId = newId();
      let after = '00000000-0000-0000-0000-000000000000';
      for (;;) {
        const accounts = await runtime.database.db
          .selectFrom('accounts')
          .select(['id', 'user_id'])
          .where('deleted_at', 'is', null)
          .where('type', '<>', 'investment')
          .where('id', '>', after)
          .orderBy('id')
          .limit(PAGE)
          .execute();
        for (const account of accounts) {
          await handleCommand(
            runtime.eventStore,
            accountStreamId(account.id),
            accountDecider,
            { type: 'TakeBalanceSnapshot', accountId: account.id, date },
            { userId: account.user_id, actor: 'system', requestId: runId, now },
            'Account',
          );
        }
        if (accounts.length < PAGE) return;
        after = accounts[accounts.length - 1].id;
      }
    },
  };
}
