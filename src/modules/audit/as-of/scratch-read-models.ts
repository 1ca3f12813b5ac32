import { type Kysely, sql, type Transaction } from 'kysely';
import type { RecordedEvent } from '../../../core/events.js';
import type { Database } from '../../../infrastructure/database/schema.js';
import type { ProjectionDefinition } from '../../../infrastructure/projections/projection.js';

/** A read model to build from some events alone. */
export interface ScratchReplay {
  readonly projection: Pick<ProjectionDefinition, 'createTables' | 'apply' | 'eventTypes'>;
  /** In the order they were appended. */
  readonly events: readonly RecordedEvent[];
}

class RolledBack extends Error {}

/**
 * Builds read models from the given events alone, with their own projectors, into temporary
 * tables of one transaction, answers `read` from them, and rolls everything back. The temporary
 * tables take the live ones' names: PostgreSQL looks in the session's temporary schema first, so
 * every query `read` makes — a response's own joins included — sees the rebuilt rows where it
 * names those tables and the live read models everywhere else.
 */
export async function readFromScratch<T>(db: Kysely<Database>, replays: readonly ScratchReplay[], read: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  let answer: { value: T } | null = null;
  await db
    .transaction()
    .execute(async (trx) => {
      const { rows } = await sql<{ path: string }>`SELECT current_setting('search_path') AS path`.execute(trx);
      await sql`SELECT set_config('search_path', 'pg_temp', true)`.execute(trx);
      for (const { projection } of replays) await projection.createTables(trx as unknown as Kysely<unknown>);
      await sql`SELECT set_config('search_path', ${rows[0].path}, true)`.execute(trx);
      for (const { projection, events } of replays) {
        const applicable = events.filter((event) => projection.eventTypes.includes(event.type));
        if (applicable.length > 0) await projection.apply(trx, applicable);
      }
      answer = { value: await read(trx) };
      throw new RolledBack();
    })
    .catch((error: unknown) => {
      if (!(error instanceof RolledBack)) throw error;
    });
  if (!answer) throw new Error('the scratch read models gave no answer');
  return (answer as { value: T }).value;
}
