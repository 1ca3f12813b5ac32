import { Kysely, PostgresDialect } from 'kysely';
import type pg from 'pg';
import type { Database } from '../../src/infrastructure/database/schema.js';

export interface RecordedStatement {
  readonly sql: string;
  readonly parameters: readonly unknown[];
}

/**
 * The statements `work` runs through kysely, in order, as compiled (text and parameters): run a
 * query handler once over `pool` and its SQL can be replayed as the raw reference, the same
 * statements rather than a copy that could drift from the handler.
 */
export async function recordStatements(pool: pg.Pool, work: (db: Kysely<Database>) => Promise<unknown>): Promise<RecordedStatement[]> {
  const statements: RecordedStatement[] = [];
  // Not destroyed: that would end `pool`, which the caller owns.
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({ pool }),
    log: (event) => {
      if (event.level === 'query') statements.push({ sql: event.query.sql, parameters: event.query.parameters });
    },
  });
  await work(db);
  return statements;
}

/** Replays the statements one after another, as the handler awaits them. */
export async function replayStatements(pool: pg.Pool, statements: readonly RecordedStatement[]): Promise<void> {
  for (const statement of statements) await pool.query(statement.sql, statement.parameters as unknown[]);
}
