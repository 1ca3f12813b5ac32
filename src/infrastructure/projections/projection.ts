import type { Kysely, Transaction } from 'kysely';
import type { RecordedEvent } from '../../core/events.js';
import type { Database } from '../database/schema.js';

/**
 * A read model: its tables, how events change them, and a version. Bumping the version means
 * "rebuild me": `migrate` drops its tables and the runner replays `$all` into fresh ones.
 */
export interface ProjectionDefinition {
  readonly name: string;
  readonly version: number;
  readonly tables: readonly string[];
  /** The event types it reads; a batch with none of them only moves the checkpoint. */
  readonly eventTypes: readonly string[];
  createTables(db: Kysely<unknown>): Promise<void>;
  /** Applies a batch (only `eventTypes`, in order) in the runner's transaction; the checkpoint moves in the same transaction. */
  apply(trx: Transaction<Database>, events: readonly RecordedEvent[]): Promise<void>;
}
