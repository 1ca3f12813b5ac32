import type pg from 'pg';
import type { DatabaseConnection } from '../../src/infrastructure/database/database.js';
import { stampIds } from '../../src/infrastructure/event-store/event-chain.js';
import { appendStatement } from '../../src/infrastructure/event-store/postgres-event-store.js';
import { listTransactionsQuery } from '../../src/modules/transactions/transaction.queries.js';
import { type LoadFigures, rawLoad } from './raw-load.js';

/**
 * The floor under the HTTP figures: the SQL an operation runs, straight from the bench process on a
 * pool, with no HTTP, framework or service code around it.
 */

/** The SQL a PATCH runs: the list check, the stream read, the append, the projector's update, the read back. */
export function rawPatch(pool: pg.Pool, userId: string, ids: readonly string[], connections: number, durationMs: number): Promise<LoadFigures> {
  return rawLoad(connections, durationMs, async (worker, iteration) => {
    const id = ids[(worker * 997 + iteration) % ids.length];
    await pool.query('SELECT id FROM transactions WHERE id = $1 AND user_id = $2', [id, userId]);
    const stream = await pool.query<{ stream_revision: string; hash: Buffer | null }>('SELECT stream_revision, hash FROM events WHERE stream_id = $1 ORDER BY stream_revision', [`transaction-${id}`]);
    const metadata = { userId, actor: 'user' as const, requestId: 'raw', causationId: 'raw', correlationId: 'raw', occurredAt: new Date().toISOString(), schemaVersion: 1 };
    const head = stream.rows[stream.rows.length - 1];
    const { statement } = appendStatement(`transaction-${id}`, stampIds([{ type: 'RawBenchEdited', data: { notes: `raw ${iteration}` }, metadata }]), BigInt(head.stream_revision), head.hash);
    await pool.query(statement).catch(() => undefined);
    await pool.query('UPDATE transactions SET notes = $2, updated_at = now() WHERE id = $1', [id, `raw ${iteration}`]);
    await pool.query('SELECT t.*, a.name FROM transactions t JOIN accounts a ON a.id = t.account_id WHERE t.id = $1 AND t.user_id = $2', [id, userId]);
  });
}

/** The list page's SQL, compiled once and replayed. */
export function rawList(database: DatabaseConnection, userId: string, connections: number, durationMs: number, cursor?: string): Promise<LoadFigures> {
  const compiled = listTransactionsQuery(database.db, userId, { accountIds: [], categoryGroups: [], cursor, limit: 50 }).compile();
  return rawLoad(connections, durationMs, async () => {
    await database.pool.query(compiled.sql, compiled.parameters as unknown[]);
  });
}
