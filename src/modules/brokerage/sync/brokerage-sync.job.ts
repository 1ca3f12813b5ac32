import { type Clock, isoDate } from '../../../core/clock.js';
import { foldOwnStream } from '../../../core/decider.js';
import type { DatabaseConnection } from '../../../infrastructure/database/database.js';
import type { EventStore } from '../../../infrastructure/event-store/event-store.port.js';
import { type CommandContext, handleCommand } from '../../../infrastructure/event-store/handle-command.js';
import type { JobDefinition, JobRunner } from '../../../infrastructure/jobs/job.js';
import { type JobTrace, tracedBy } from '../../../infrastructure/jobs/job-trace.js';
import { formatIsoDate, parseIsoDate } from '../../../core/calendar-day.js';
import { brokerageAccountDecider } from '../accounts/brokerage-account.decider.js';
import { toActivityData, toPositionData, toSnapshotData } from '../accounts/brokerage-account.mapping.js';
import { brokerageAuthorizationDecider, liveBrokerageAccountsOf } from '../authorizations/brokerage-authorization.decider.js';
import { BrokerageLinkError, type BrokerageLinkProvider, type BrokerageUser } from '../brokerage-link.port.js';
import type { BrokerageLink } from '../brokerage-link.wiring.js';
import { type BrokerageAccountData, brokerageAccountStreamId, brokerageAuthorizationStreamId, brokerageAuthorizationUuidOf } from '../brokerage.events.js';
import { registeredBrokerageUser } from '../provider/brokerage-users.js';

export const BROKERAGE_SYNC_JOB = 'brokerage-sync';

/** Days of history the first sync back-fills, up to yesterday: a year of chart on day one. */
export const BACKFILL_DAYS = 365;

/**
 * Per request, not per authorization: a sync asked for after one finished must run. Requests in
 * the same second share a job; overlapping syncs of one account serialise on its stream's revision.
 */
export const brokerageSyncJobId = (authorizationUuid: string, at: Date) => `brokerage-sync-${authorizationUuid}-${Math.floor(at.getTime() / 1000)}`;

export interface BrokerageSyncInput {
  readonly userId: string;
  readonly brokerageAuthorizationId: string;
  /** The request that asked (the portal's completion); the schedule's runs have none. */
  readonly trace?: JobTrace;
}

/** Queues a sync of one user's authorization: the portal's completion and the schedule both ask this way. */
export async function queueBrokerageSync(jobs: Pick<JobRunner, 'enqueue'>, userId: string, brokerageAuthorizationId: string, at: Date, trace?: JobTrace): Promise<void> {
  const input: BrokerageSyncInput = trace ? { userId, brokerageAuthorizationId, trace } : { userId, brokerageAuthorizationId };
  await jobs.enqueue(BROKERAGE_SYNC_JOB, input, { jobId: brokerageSyncJobId(brokerageAuthorizationUuidOf(userId, brokerageAuthorizationId), at) });
}

export interface BrokerageSyncDependencies {
  readonly database: DatabaseConnection;
  readonly eventStore: EventStore;
  readonly clock: Clock;
  readonly brokerageLink: () => Promise<BrokerageLink>;
}

/** Where tests stop a sync part-way: after an account's events are appended. */
export interface BrokerageSyncHooks {
  readonly afterAccount?: (account: BrokerageAccountData) => void | Promise<void>;
}

/**
 * Syncs each account of an active authorization from the provider, one append per account on its
 * own stream (actor `system`): the activities it did not have (by provider id), its holdings when
 * they moved, and its snapshots — a year back-filled on the first sync, the days missed since the
 * last one after that, and today's from the same valuation as the holdings. Every decision is
 * made against the account stream's state, so a rerun, a run after a crash part-way, or two runs
 * at once append nothing twice. A provider that answers AUTHORIZATION_DISABLED gets the
 * authorization recorded disabled, and the sync stops without failing.
 */
export function brokerageSyncJob(dependencies: BrokerageSyncDependencies, hooks: BrokerageSyncHooks = {}): JobDefinition<BrokerageSyncInput> {
  return {
    name: BROKERAGE_SYNC_JOB,
    async handle({ userId, brokerageAuthorizationId, trace }) {
      const { database, eventStore, clock } = dependencies;
      const link = await dependencies.brokerageLink();
      const provider = link.provider;
      if (!provider) return;
      const authorizationUuid = brokerageAuthorizationUuidOf(userId, brokerageAuthorizationId);
      const context = (): CommandContext => ({ userId, actor: 'system', requestId: `brokerage-sync-${authorizationUuid}`, ...tracedBy(trace), now: clock.now() });
      const authorization = foldOwnStream(brokerageAuthorizationDecider, await eventStore.readStream(brokerageAuthorizationStreamId(authorizationUuid)), userId);
      if (authorization.status !== 'active') return;
      const user = await registeredBrokerageUser(database.db, link, userId);
      if (!user) return;
      // An account the user disconnected is synced no more.
      for (const account of liveBrokerageAccountsOf(authorization)) {
        try {
          await syncAccount(eventStore, provider, user, account, context());
        } catch (error) {
          if (!(error instanceof BrokerageLinkError && error.code === 'AUTHORIZATION_DISABLED')) throw error;
          const command = { type: 'RecordAuthorizationDisabled' as const, authorizationUuid, reason: error.message };
          await handleCommand(eventStore, brokerageAuthorizationStreamId(authorizationUuid), brokerageAuthorizationDecider, command, context(), 'Brokerage authorization');
          return;
        }
        await hooks.afterAccount?.(account);
      }
    },
  };
}

async function syncAccount(store: EventStore, provider: BrokerageLinkProvider, user: BrokerageUser, account: BrokerageAccountData, context: CommandContext): Promise<void> {
  const streamId = brokerageAccountStreamId(account.accountId);
  const state = foldOwnStream(brokerageAccountDecider, await store.readStream(streamId), context.userId);
  const today = isoDate(context.now);
  const yesterday = formatIsoDate(parseIsoDate(today) - 1);
  // The days the account has no snapshot of yet, up to yesterday (today's comes from the holdings).
  const startDate = state.lastSnapshot === null ? formatIsoDate(parseIsoDate(today) - BACKFILL_DAYS) : formatIsoDate(parseIsoDate(state.lastSnapshot.date) + 1);
  const id = account.brokerageAccountId;
  const [activities, balance, positions, values] = await Promise.all([
    provider.getActivities(user, id),
    provider.getBalance(user, id),
    provider.getPositions(user, id),
    startDate <= yesterday ? provider.getPortfolioValues(user, id, { startDate, endDate: yesterday }) : Promise.resolve([]),
  ]);
  const view = {
    activities: activities.map((activity) => toActivityData(account.accountId, activity)),
    currency: balance.currency,
    cash: balance.cash,
    buyingPower: balance.buyingPower,
    positions: positions.map(toPositionData),
    history: values.map((value) => toSnapshotData(value, balance.currency)),
  };
  await handleCommand(store, streamId, brokerageAccountDecider, { type: 'RecordAccountSync', accountId: account.accountId, today, asOf: context.now.toISOString(), view }, context, 'Brokerage account');
}
