import type { RecordedEvent } from '../../src/core/events.js';
import type { ProjectionDefinition } from '../../src/infrastructure/projections/projection.js';
import {
  BROKERAGE_ACCOUNT_EVENT_TYPES,
  BROKERAGE_ACCOUNT_STREAM_PREFIX,
  BROKERAGE_AUTHORIZATION_EVENT_TYPES,
  BROKERAGE_AUTHORIZATION_STREAM_PREFIX,
  type BrokerageAccountEvent,
  type BrokerageAuthorizationEvent,
} from '../../src/modules/brokerage/brokerage.events.js';
import { applyBrokerageAccountEvent } from './brokerage-account.rows.js';
import { applyBrokerageAuthorizationEvent } from './brokerage-authorization.rows.js';
import { createBrokerageTables } from './brokerage.tables.js';

/**
 * The brokerage views' read model: authorizations and the accounts they brought, each account's
 * latest valuation (balance and positions), its activities and its daily portfolio snapshots.
 * Built only from the brokerage events; the request path never calls the provider.
 */
export const brokerageProjection: ProjectionDefinition = {
  name: 'brokerage',
  version: 1,
  tables: ['brokerage_authorizations', 'brokerage_accounts', 'brokerage_balances', 'brokerage_positions', 'brokerage_activities', 'portfolio_snapshots'],
  eventTypes: [...BROKERAGE_AUTHORIZATION_EVENT_TYPES, ...BROKERAGE_ACCOUNT_EVENT_TYPES],
  createTables: createBrokerageTables,
  async apply(trx, events) {
    for (const recorded of events) {
      if (recorded.streamId.startsWith(BROKERAGE_AUTHORIZATION_STREAM_PREFIX)) {
        await applyBrokerageAuthorizationEvent(trx, recorded as RecordedEvent<BrokerageAuthorizationEvent>);
      } else if (recorded.streamId.startsWith(BROKERAGE_ACCOUNT_STREAM_PREFIX)) {
        await applyBrokerageAccountEvent(trx, recorded as RecordedEvent<BrokerageAccountEvent>);
      }
    }
  },
};
