import type { JobDefinition } from './infrastructure/jobs/job.js';
import type { Runtime } from './infrastructure/runtime/runtime.js';
import { nightlyBalanceSnapshotsJob } from './modules/accounts/nightly-balance-snapshots.job.js';
import { expiredTokensPruneJob } from './modules/housekeeping/expired-tokens-prune.job.js';
import { type BrokerageLink, createBrokerageLink } from './modules/brokerage/brokerage-link.wiring.js';
import { brokerageSyncJob } from './modules/brokerage/sync/brokerage-sync.job.js';
import { scheduledBrokerageSyncJob } from './modules/brokerage/sync/scheduled-brokerage-sync.job.js';
import { type BankLink, createBankLink } from './modules/link/bank-link.wiring.js';
import { bankLinkSyncJob } from './modules/link/sync/bank-link-sync.job.js';
import { scheduledBankLinkSyncJob } from './modules/link/sync/scheduled-bank-link-sync.job.js';
import { overdueStreamsSweepJob } from './modules/insights/recurring/refresh/overdue-streams-sweep.job.js';
import { recurringRefreshJob } from './modules/insights/recurring/refresh/recurring-refresh.job.js';
import { tagDeletionJob } from './modules/tags/tag-deletion.job.js';
import { statementImportJob } from './modules/imports/statement-import.job.js';
import { ruleApplicationJob } from './modules/rules/rule-application.job.js';
import { rulesOnNewTransactionsJob } from './modules/rules/rules-on-new-transactions.job.js';
import { transferPairingJob } from './modules/transactions/transfers/transfer-pairing.job.js';

/** Every background job the service runs; BullMQ and the in-process runner share these definitions. */
export function serviceJobs(runtime: Omit<Runtime, 'jobs' | 'close'>): JobDefinition<never>[] {
  let bankLink: Promise<BankLink> | undefined;
  const openBankLink = () => (bankLink ??= createBankLink(runtime.config, runtime.database.db, runtime.clock));
  let brokerageLink: Promise<BrokerageLink> | undefined;
  const openBrokerageLink = () => (brokerageLink ??= createBrokerageLink(runtime.config, runtime.database.db, runtime.clock));
  return [
    nightlyBalanceSnapshotsJob(runtime) as JobDefinition<never>,
    tagDeletionJob(runtime) as JobDefinition<never>,
    bankLinkSyncJob({ ...runtime, bankLink: openBankLink }) as JobDefinition<never>,
    scheduledBankLinkSyncJob({ ...runtime, bankLink: openBankLink, everyMinutes: runtime.config.bankLinkSyncIntervalMinutes }) as JobDefinition<never>,
    brokerageSyncJob({ ...runtime, brokerageLink: openBrokerageLink }) as JobDefinition<never>,
    scheduledBrokerageSyncJob({ ...runtime, brokerageLink: openBrokerageLink, everyMinutes: runtime.config.brokerageSyncIntervalMinutes }) as JobDefinition<never>,
    recurringRefreshJob(runtime) as JobDefinition<never>,
    overdueStreamsSweepJob(runtime) as JobDefinition<never>,
    expiredTokensPruneJob(runtime) as JobDefinition<never>,
    statementImportJob(runtime) as JobDefinition<never>,
    rulesOnNewTransactionsJob(runtime) as JobDefinition<never>,
    ruleApplicationJob(runtime) as JobDefinition<never>,
    transferPairingJob(runtime) as JobDefinition<never>,
  ];
}
