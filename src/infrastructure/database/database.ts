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

export interface ConnectOptions {
  readonly max?: number;
  readonly applicationName?: string;
  /** Schemas for unqualified names (a release's read-model versions, then public). */
  readonly searchPath?: readonly string[];
  /** Server-side bound on every statement; 0 for none (migrations and rebuilds set their own). */
  readonly statementTimeoutMs?: number;
  /** Clients in pipeline mode: a statement is sent without waiting for the answers before it (decision 0033). */
  readonly pipeline?: boolean;
}

/** Every statement and idle transaction is bounded, and a dead peer is noticed by keepalive. */
export const DEFAULT_STATEMENT_TIMEOUT_MS = 30_000;
const IDLE_IN_TRANSACTION_TIMEOUT_MS = 60_000;
const CONNECT_TIMEOUT_MS = 10_000;

export function connectDatabase(url: string, options: ConnectOptions = {}): DatabaseConnection {
  const settings = [
    `-c statement_timeout=${options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS}`,
    `-c idle_in_transaction_session_timeout=${IDLE_IN_TRANSACTION_TIMEOUT_MS}`,
    // Requests run many small statements at once: a parallel plan's worker start-up cost more than
    // it saved (spending at 1M: ~75 ms instead of ~20 ms per statement) and took cores from other requests.
    '-c max_parallel_workers_per_gather=0',
    ...(options.searchPath ? [`-c search_path=${options.searchPath.join(',')}`] : []),
  ];
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 20,
    application_name: options.applicationName ?? 'ledgerline',
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    options: settings.join(' '),
    ...(options.pipeline ? { pipeline: true } : {}),
  } as pg.PoolConfig);
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
