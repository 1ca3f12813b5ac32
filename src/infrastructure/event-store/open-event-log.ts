import type { AppConfig } from '../../config/config.js';
import type { DatabaseConnection } from '../database/database.js';
import type { EventLog } from './event-log.port.js';
import { EventStoreDbEventLog } from './eventstoredb-event-log.js';
import { PostgresEventLog } from './postgres-event-log.js';

/** The log of the configured event store (EVENTSTORE_URL, else the PostgreSQL one), for audits and exports. */
export function openEventLog(config: Pick<AppConfig, 'eventStoreUrl'>, connection: Pick<DatabaseConnection, 'pool'>): EventLog {
  return config.eventStoreUrl ? new EventStoreDbEventLog(config.eventStoreUrl) : new PostgresEventLog(connection.pool);
}
