import { sql } from 'kysely';
import { createTestDatabase, type TestDatabase } from '../../../test/support/test-database.js';
import type { ProjectionDefinition } from '../projections/projection.js';
import { readModelSearchPath } from '../projections/projection.js';
import { connectDatabase, type DatabaseConnection } from './database.js';
import { migrate, pendingMigrations } from './migrate.js';

let database: TestDatabase;
const connections: DatabaseConnection[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await Promise.all(connections.map((connection) => connection.close()));
  await database.drop();
});

/** The same read model in two releases: version 2 adds a column. */
const notesV1: ProjectionDefinition = {
  name: 'notes',
  version: 1,
  tables: ['notes'],
  eventTypes: [],
  createTables: async (db) => {
    await sql`CREATE TABLE notes (id text PRIMARY KEY)`.execute(db);
    await sql`CREATE INDEX notes_by_id ON notes (id)`.execute(db);
  },
  apply: async () => undefined,
};
const notesV2: ProjectionDefinition = {
  ...notesV1,
  version: 2,
  createTables: async (db) => {
    await sql`CREATE TABLE notes (id text PRIMARY KEY, body text)`.execute(db);
    await sql`CREATE INDEX notes_by_id ON notes (id)`.execute(db);
  },
};

function connectAs(projections: readonly ProjectionDefinition[]): DatabaseConnection {
  const connection = connectDatabase(database.url, { max: 2, searchPath: readModelSearchPath(projections) });
  connections.push(connection);
  return connection;
}

describe('migrate', () => {
  it('lists every core migration as pending on an empty database and none after', async () => {
    const release = connectAs([notesV1]);
    expect((await pendingMigrations(release.db)).length).toBeGreaterThan(0);
    expect(await migrate(release.db, [notesV1])).toEqual([{ name: 'notes', version: 1, action: 'created' }]);
    expect(await pendingMigrations(release.db)).toEqual([]);
    expect(await migrate(release.db, [notesV1])).toEqual([{ name: 'notes', version: 1, action: 'current' }]);
  });

  it('builds a new version beside the one an older release still serves, dropping nothing', async () => {
    const older = connectAs([notesV1]);
    await migrate(older.db, [notesV1]);
    await sql`INSERT INTO notes (id) VALUES ('kept')`.execute(older.db);

    const newer = connectAs([notesV2]);
    expect(await migrate(newer.db, [notesV2])).toEqual([{ name: 'notes', version: 2, action: 'created' }]);

    // Each release reads and writes its own version through unqualified names.
    expect((await sql<{ id: string }>`SELECT id FROM notes`.execute(older.db)).rows).toEqual([{ id: 'kept' }]);
    await sql`INSERT INTO notes (id, body) VALUES ('new', 'hello')`.execute(newer.db);
    expect((await sql<{ id: string }>`SELECT id FROM notes`.execute(newer.db)).rows).toEqual([{ id: 'new' }]);

    // Running the older release's migrate again (a restart mid-deploy) leaves both alone.
    await migrate(older.db, [notesV1]);
    expect((await sql<{ id: string }>`SELECT id FROM notes`.execute(older.db)).rows).toEqual([{ id: 'kept' }]);
    const versions = await older.db.selectFrom('projection_versions').select(['name', 'version']).where('name', '=', 'notes').orderBy('version').execute();
    expect(versions).toEqual([
      { name: 'notes', version: 1 },
      { name: 'notes', version: 2 },
    ]);
  });

  it('lets many processes start at once', async () => {
    const fresh = await createTestDatabase();
    const racing = Array.from({ length: 4 }, () => connectDatabase(fresh.url, { max: 2, searchPath: readModelSearchPath([notesV1]) }));
    try {
      const setups = await Promise.all(racing.map((connection) => migrate(connection.db, [notesV1])));
      expect(setups.flat().filter((setup) => setup.action === 'created')).toHaveLength(1);
    } finally {
      await Promise.all(racing.map((connection) => connection.close()));
      await fresh.drop();
    }
  });
});
