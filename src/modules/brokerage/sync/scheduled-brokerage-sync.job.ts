import type { Clock } from '../../../core/clock.js';
import type { DatabaseConnection } from '../../../infrastructure/database/database.js';
import { intervalStart, type JobDefinition } from '../../../infrastructure/jobs/job.js';
import type { BrokerageLink } from '../brokerage-link.wiring.js';
import { queueBrokerageSync } from './brokerage-sync.job.js';

export const BROKERAGE_SCHEDULED_SYNC_JOB = 'brokerage-scheduled-sync';

/** Authorizations read, and syncs queued, per round trip. */
export const SCHEDULED_BROKERAGE_SYNC_BATCH = 500;

export interface ScheduledBrokerageSyncDependencies {
  readonly database: DatabaseConnection;
  readonly clock: Clock;
  readonly brokerageLink: () => Promise<BrokerageLink>;
  /** BROKERAGE_SYNC_INTERVAL_MINUTES (a day by default); 0: no schedule (the job still runs when queued by hand). */
  readonly everyMinutes: number;
}

/**
 * Every N minutes (daily by default, at 00:00 UTC in process), queues `brokerage-sync` for every
 * authorization of the configured provider, so each account gets its daily snapshot (and the
 * days before it, had any been missed) and its new activities unasked.
 *
 * The authorizations come from `brokerage_link_authorizations`, written when the portal completes
 * (before the authorization's first event), not from a read model: no projection lag or version.
 * A disabled authorization's sync reads its stream, finds it disabled and stops.
 *
 * Pages by authorization in bounded batches. Idempotent: the sync jobs' ids name the authorization
 * and the start of the interval, so a retried or repeated run in the same interval queues nothing new.
 */
export function scheduledBrokerageSyncJob(dependencies: ScheduledBrokerageSyncDependencies): JobDefinition<Record<string, never>> {
  const { database, clock, everyMinutes } = dependencies;
  return {
    name: BROKERAGE_SCHEDULED_SYNC_JOB,
    ...(everyMinutes > 0 ? { schedule: { everyMinutes, input: {} } } : {}),
    async handle(_input, jobs) {
      if (!jobs) throw new Error(`${BROKERAGE_SCHEDULED_SYNC_JOB} queues syncs through the runner that runs it, and was given none`);
      const link = await dependencies.brokerageLink();
      if (!link.provider) return;
      const now = clock.now();
      const runAt = everyMinutes > 0 ? intervalStart(everyMinutes, now) : now;
      let after = '00000000-0000-0000-0000-000000000000';
      for (;;) {
        const authorizations = await database.db
          .selectFrom('brokerage_link_authorizations')
          .select(['authorization_uuid', 'user_id', 'brokerage_authorization_id'])
          .where('provider', '=', link.providerName)
          .where('authorization_uuid', '>', after)
          .orderBy('authorization_uuid')
          .limit(SCHEDULED_BROKERAGE_SYNC_BATCH)
          .execute();
        for (const authorization of authorizations) await queueBrokerageSync(jobs, authorization.user_id, authorization.brokerage_authorization_id, runAt);
        if (authorizations.length < SCHEDULED_BROKERAGE_SYNC_BATCH) return;
        after = authorizations[authorizations.length - 1]!.authorization_uuid;
      }
    },
  };
}
