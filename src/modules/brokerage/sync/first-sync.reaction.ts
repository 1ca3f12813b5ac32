import { causeOf, reaction, traceOf } from '../../../infrastructure/projections/reaction.js';
import { BROKERAGE_SYNC_JOB, type BrokerageSyncInput, brokerageSyncJobId } from './brokerage-sync.job.js';

/**
 * A connection completed in the portal, or reconnected, asks for its sync: activities, holdings
 * and a year of snapshots. The provider's authorization id comes from the authorizations the
 * portal recorded (a reconnect's event names only the service's id).
 */
export const brokerageFirstSyncReaction = reaction({
  name: 'brokerage-sync-requests',
  version: 1,
  eventTypes: ['BrokerageAuthorizationConnected', 'BrokerageAuthorizationReconnected'],
  async jobsFor(events, db) {
    const uuids = [...new Set(events.map((event) => (event.data as { authorizationUuid: string }).authorizationUuid))];
    const rows = await db.selectFrom('brokerage_link_authorizations').select(['authorization_uuid', 'brokerage_authorization_id']).where('authorization_uuid', 'in', uuids).execute();
    const providerIds = new Map(rows.map((row) => [row.authorization_uuid, row.brokerage_authorization_id]));
    return events.flatMap((event) => {
      const { authorizationUuid } = event.data as { authorizationUuid: string };
      const brokerageAuthorizationId = providerIds.get(authorizationUuid);
      if (!brokerageAuthorizationId) return [];
      const input: BrokerageSyncInput = { userId: event.metadata.userId, brokerageAuthorizationId, trace: traceOf(event) };
      return [{ name: BROKERAGE_SYNC_JOB, input, jobId: brokerageSyncJobId(authorizationUuid, new Date(event.metadata.occurredAt)), cause: causeOf(event) }];
    });
  },
});
