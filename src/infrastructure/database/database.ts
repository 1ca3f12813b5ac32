import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Database } from './schema.js';

// numeric and bigint columns arrive as exact text; int8 counts fit a JS number in practice.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));
pg.types.setTypeParser(pg.types.builtins.DATE, (value) => value);

export interface DatabaseConnection {
  readonly pool: pg.Pool;
  readonly db: Kysely<Database>;
  readonly url: string;
  close(): Promise<void>;
}

export function connectDatabase(url: string, options: { max?: number; applicationName?: string } = {}): DatabaseConnection {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 20,
    application_name: options.applicationName ?? 'ledgerline',
  });
  // A connection the server drops (restart, failover, pg_terminate_backend) must not crash the
  // process: its query, if any, fails on its own; the pool replaces the client.
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  let closed = false;
  return {
    pool,
    db,
    url,
    async close() {
      if (closed) return;
      closed = true;
      await db.destroy();
    },
  };
}
