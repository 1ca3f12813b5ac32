import {
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type QueryResult,
  type Transaction,
} from 'kysely';
import type pg from 'pg';
import type { Database } from '../database/schema.js';

/** A statement whose answer nobody reads: sent, and its outcome checked when the transaction ends. */
const UNREAD_WRITE = /^\s*(insert|update|delete)\b/i;
const RETURNING = /\breturning\b/i;

export interface Statement {
  readonly name?: string;
  readonly text: string;
  readonly values?: readonly unknown[];
}

/**
 * One transaction on a connection in pipeline mode (decision 0033): statements go out as soon as
 * they are made, without waiting for the answers of those before them, so a write — its guards,
 * the append and the inline projections — costs one round trip. Writes through `db` (INSERT,
 * UPDATE, DELETE without RETURNING) resolve at once with no rows; reads wait for their answer,
 * which PostgreSQL computes after everything sent before them. A statement that fails aborts the
 * transaction: what follows it fails too, COMMIT rolls back, and `commit` throws the first failure.
 */
export class PipelinedTransaction {
  private readonly sent: Promise<pg.QueryResult>[] = [];
  private finished = false;
  readonly db: Transaction<Database>;

  constructor(private readonly client: pg.PoolClient) {
    this.db = kyselyOver({ executeQuery: (query) => this.execute(query), streamQuery: () => refuseStreaming() }) as unknown as Transaction<Database>;
    // A read model held by someone else (a long lock, a rebuild's switch) must not hold the write:
    // past a second the inline writes give up (55P03), and the append is made without them.
    this.send({ text: 'BEGIN; SET LOCAL lock_timeout = 1000' });
  }

  send(statement: Statement): Promise<pg.QueryResult> {
    if (this.finished) throw new Error('the pipelined transaction has ended');
    const answer = statement.name
      ? this.client.query({ name: statement.name, text: statement.text, values: statement.values as unknown[] })
      : this.client.query(statement.text, statement.values as unknown[] | undefined);
    // Its failure is reported by commit(), in order, not as an unhandled rejection meanwhile.
    answer.catch(() => undefined);
    this.sent.push(answer);
    return answer;
  }

  /** Commits, or throws the first failure of anything sent (the transaction then rolled back). */
  async commit(): Promise<void> {
    const committed = this.end('COMMIT');
    await this.firstFailure();
    if ((await committed).command !== 'COMMIT') throw new Error('the pipelined transaction rolled back without a failing statement');
  }

  /** Rolls back; throws the first failure of what was sent if there was one, else `cause`. */
  async rollback(cause: unknown): Promise<never> {
    const rolledBack = this.end('ROLLBACK');
    await this.firstFailure();
    await rolledBack;
    throw cause;
  }

  private end(command: 'COMMIT' | 'ROLLBACK'): Promise<pg.QueryResult> {
    const answer = this.send({ text: command });
    this.finished = true;
    return answer;
  }

  private async firstFailure(): Promise<void> {
    for (const answer of this.sent) await answer;
  }

  private async execute<Row>(query: CompiledQuery): Promise<QueryResult<Row>> {
    const answer = this.send({ text: query.sql, values: query.parameters });
    if (UNREAD_WRITE.test(query.sql) && !RETURNING.test(query.sql)) return { rows: [] };
    const { rows, rowCount } = await answer;
    return { rows: rows as Row[], numAffectedRows: rowCount === null ? undefined : BigInt(rowCount) };
  }
}

function kyselyOver(connection: DatabaseConnection): Kysely<Database> {
  const driver: Driver = {
    init: async () => undefined,
    acquireConnection: async () => connection,
    beginTransaction: async () => refuseNesting(),
    commitTransaction: async () => refuseNesting(),
    rollbackTransaction: async () => refuseNesting(),
    releaseConnection: async () => undefined,
    destroy: async () => undefined,
  };
  return new Kysely<Database>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => driver,
      createIntrospector: (db) => new PostgresIntrospector(db),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
  });
}

function refuseNesting(): never {
  throw new Error('an inline projection runs inside the append’s transaction and cannot open another');
}

function refuseStreaming(): never {
  throw new Error('an inline projection cannot stream a query');
}
