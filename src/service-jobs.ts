import type { JobDefinition } from './infrastructure/jobs/job.js';
import type { Runtime } from './infrastructure/runtime/runtime.js';
import { nightlyBalanceSnapshotsJob } from './modules/accounts/nightly-balance-snapshots.job.js';
import { tagDeletionJob } from './modules/tags/tag-deletion.job.js';

/** Every background job the service runs; BullMQ and the in-process runner share these definitions. */
export function serviceJobs(runtime: Omit<Runtime, 'jobs' | 'close'>): JobDefinition<never>[] {
  return [nightlyBalanceSnapshotsJob(runtime) as JobDefinition<never>, tagDeletionJob(runtime) as JobDefinition<never>];
}
