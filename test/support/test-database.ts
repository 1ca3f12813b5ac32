import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { connectDatabase, type DatabaseConnection } from '../../src/infrastructure/database/database.js';
import { migrate } from '../../src/infrastructure/database/migrate.js';
import { PROJECTIONS } from '../../projections/index.js';
import { readModelSearchPath } from '../../src/infrastructure/projections/projection.js';

export interface TestDatabase {
  readonly url: string;
  drop(): Promise<void>;
}

/** A fresh, empty database on the test PostgreSQL server, one per test file. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const adminUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const name = `ledgerline_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

/** A fresh database with every migration and projection table in place. */
export async function createMigratedDatabase(): Promise<{ database: TestDatabase; connection: DatabaseConnection }> {
  const database = await createTestDatabase();
  const connection = connectDatabase(database.url, { max: 10, searchPath: readModelSearchPath(PROJECTIONS) });
  await migrate(connection.db, PROJECTIONS);
  return { database, connection };
}
