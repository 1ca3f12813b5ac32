import { type Kysely, type Migration, Migrator, sql } from 'kysely';
import type { ProjectionDefinition } from '../projections/projection.js';
import * as eventStore from './migrations/0001-event-store.js';
import * as checkpoints from './migrations/0002-projection-checkpoints.js';
import * as identity from './migrations/0003-identity.js';
import * as sessions from './migrations/0004-sessions.js';
import type { Database } from './schema.js';

const CORE_MIGRATIONS: Record<string, Migration> = {
  '0001-event-store': eventStore,
  '0002-projection-checkpoints': checkpoints,
  '0003-identity': identity,
  '0004-sessions': sessions,
};

/** Any number of processes may start at once: the advisory lock lets one set up at a time. */
const SETUP_LOCK = 7_303_001;

export interface ProjectionSetup {
  readonly name: string;
  readonly action: 'created' | 'rebuilding' | 'current';
}

export async function migrate(db: Kysely<Database>, projections: readonly ProjectionDefinition[]): Promise<ProjectionSetup[]> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => CORE_MIGRATIONS } });
  const { error } = await migrator.migrateToLatest();
  if (error) throw error;
  return db.transaction().execute(async (trx) => {
    await sql`SELECT pg_advisory_xact_lock(${SETUP_LOCK})`.execute(trx);
    const setups: ProjectionSetup[] = [];
    for (const projection of projections) setups.push(await prepareProjection(trx, projection));
    return setups;
  });
}

/** Creates a projection's tables, or — when its version changed — drops them so it is rebuilt from `$all`. */
async function prepareProjection(trx: Kysely<Database>, projection: ProjectionDefinition): Promise<ProjectionSetup> {
  const checkpoint = await trx.selectFrom('projection_checkpoints').select('version').where('name', '=', projection.name).executeTakeFirst();
  if (checkpoint?.version === projection.version) return { name: projection.name, action: 'current' };
  for (const table of projection.tables) await sql`DROP TABLE IF EXISTS ${sql.table(table)} CASCADE`.execute(trx);
  await projection.createTables(trx as Kysely<unknown>);
  await trx
    .insertInto('projection_checkpoints')
    .values({ name: projection.name, version: projection.version, position_commit: '0', position_prepare: '0', events_applied: 0, updated_at: new Date() })
    .onConflict((conflict) =>
      conflict.column('name').doUpdateSet({ version: projection.version, position_commit: '0', position_prepare: '0', events_applied: 0, updated_at: new Date() }),
    )
    .execute();
  return { name: projection.name, action: checkpoint ? 'rebuilding' : 'created' };
}
