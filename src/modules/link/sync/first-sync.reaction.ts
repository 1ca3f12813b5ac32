import { causeOf, reaction, traceOf } from '../../../infrastructure/projections/reaction.js';
import type { LinkItemLinked } from '../link-items/link-item.js';
import { BANK_LINK_SYNC_JOB, type BankLinkSyncInput, bankLinkSyncJobId } from './bank-link-sync.job.js';

/** A linked or reconnected item asks for its sync: the first import of its history, or of what the reconnect brought. */
export const bankLinkFirstSyncReaction = reaction({
  name: 'bank-link-sync-requests',
  version: 1,
  eventTypes: ['LinkItemLinked', 'LinkItemReconnected'],
  jobsFor: (events) =>
    events.map((event) => {
      const { linkItemUuid, linkItemId } = event.data as Pick<LinkItemLinked['data'], 'linkItemUuid' | 'linkItemId'>;
      const input: BankLinkSyncInput = { userId: event.metadata.userId, linkItemId, trace: traceOf(event) };
      return { name: BANK_LINK_SYNC_JOB, input, jobId: bankLinkSyncJobId(linkItemUuid, new Date(event.metadata.occurredAt)), cause: causeOf(event) };
    }),
});
