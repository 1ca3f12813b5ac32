import { type Kysely, sql, type Transaction } from 'kysely';
import type { Database } from '../database/schema.js';
import { type ProjectionDefinition, projectionSchema } from './projection.js';

type VersionOf = Pick<ProjectionDefinition, 'name' | 'version'>;

/**
 * One unit of work on a projection version's tables. The transaction-level advisory lock
 * serialises the service's runner (every batch) with an operator's `projections retry`, so a
 * parked event is never re-applied in the middle of a batch; the local search_path puts this
 * version's schema first, whatever the connection's own path is. It commits without waiting for
 * the WAL flush (synchronous_commit off): a read model is rebuilt from events, and its checkpoint
 * commits with its rows, so a crash loses at most the last moments of both, which the runner
 * applies again; waiting for every runner's flush held back the event store's own commits.
 */
export function projectionTransaction<T>(db: Kysely<Database>, projection: VersionOf, work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  return db.transaction().execute(async (trx) => {
    await sql`
      SELECT pg_advisory_xact_lock(hashtext(${`projection-apply:${projection.name}:${projection.version}`})),
             set_config('search_path', ${projectionSchema(projection)} || ', ' || current_setting('search_path'), true),
             set_config('synchronous_commit', 'off', true)`.execute(trx);
    return work(trx);
  });
}
