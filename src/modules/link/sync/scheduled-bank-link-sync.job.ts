import type { Clock } from '../../../core/clock.js';
import type { DatabaseConnection } from '../../../infrastructure/database/database.js';
import { intervalStart, type JobDefinition } from '../../../infrastructure/jobs/job.js';
import type { BankLink } from '../bank-link.wiring.js';
import { queueBankLinkSync } from './bank-link-sync.job.js';

export const BANK_LINK_SCHEDULED_SYNC_JOB = 'bank-link-scheduled-sync';

/** Items read, and syncs queued, per round trip. */
export const SCHEDULED_SYNC_BATCH = 500;

export interface ScheduledBankLinkSyncDependencies {
  readonly database: DatabaseConnection;
  readonly clock: Clock;
  readonly bankLink: () => Promise<BankLink>;
  /** BANK_LINK_SYNC_INTERVAL_MINUTES; 0: no schedule (the job still runs when queued by hand). */
  readonly everyMinutes: number;
}

/**
 * Every N minutes, queues `bank-link-sync` for every item of the configured provider, as
 * `POST /link/items/{linkItemId}/sync` does, so new transactions and balances arrive unasked.
 *
 * The items come from `link_item_credentials`, not the link-items read model: a sync needs the
 * sealed token that table holds, its row is written before the item's `LinkItemLinked` and deleted
 * when a disconnect has removed the item at the provider, and it has no projection lag or version.
 * An item disconnected whose removal at the provider has not finished yet keeps its row a while:
 * its sync reads the item's stream, finds it disconnected and stops.
 *
 * Pages by item id in bounded batches. Idempotent: the sync jobs' ids name the item and the start
 * of the interval, so a retried or repeated run in the same interval queues nothing new.
 */
export function scheduledBankLinkSyncJob(dependencies: ScheduledBankLinkSyncDependencies): JobDefinition<Record<string, never>> {
  const { database, clock, everyMinutes } = dependencies;
  return {
    name: BANK_LINK_SCHEDULED_SYNC_JOB,
    ...(everyMinutes > 0 ? { schedule: { everyMinutes, input: {} } } : {}),
    async handle(_input, jobs) {
      if (!jobs) throw new Error(`${BANK_LINK_SCHEDULED_SYNC_JOB} queues syncs through the runner that runs it, and was given none`);
      const bankLink = await dependencies.bankLink();
      if (!bankLink.provider) return;
      const now = clock.now();
      const runAt = everyMinutes > 0 ? intervalStart(everyMinutes, now) : now;
      let after = '00000000-0000-0000-0000-000000000000';
      for (;;) {
        const items = await database.db
          .selectFrom('link_item_credentials')
          .select(['link_item_uuid', 'user_id', 'link_item_id'])
          .where('provider', '=', bankLink.providerName)
          .where('link_item_uuid', '>', after)
          .orderBy('link_item_uuid')
          .limit(SCHEDULED_SYNC_BATCH)
          .execute();
        for (const item of items) await queueBankLinkSync(jobs, item.user_id, item.link_item_id, runAt, item.link_item_uuid);
        if (items.length < SCHEDULED_SYNC_BATCH) return;
        after = items[items.length - 1].link_item_uuid;
      }
    },
  };
}
