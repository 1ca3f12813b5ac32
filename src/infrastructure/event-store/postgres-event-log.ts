import type pg from 'pg';
import type { GlobalPosition } from '../../core/events.js';
import type { EventLog, LoggedEvent } from './event-log.port.js';
import { COLUMNS, type EventRow, toRecordedEvent } from './postgres-event-store.js';

const PAGE = 1000;

type LoggedRow = EventRow & { previous_hash: Buffer | null; hash: Buffer | null };

const LOGGED_COLUMNS = `${COLUMNS}, previous_hash, hash`;

/**
 * The line of `exportLineOf`, written by PostgreSQL: the stored data and metadata go out as the
 * text jsonb gives, never parsed and written again by the service.
 */
export const EXPORT_LINE = `'{"position":"' || transaction_id::text || '/' || global_position || '","stream":' || to_json(stream_id)::text || ',"revision":' || stream_revision
  || ',"id":"' || event_id || '","type":' || to_json(type)::text || ',"data":' || data::text || ',"metadata":' || metadata::text
  || ',"occurredAt":' || coalesce((metadata->'occurredAt')::text, 'null')
  || ',"previousHash":' || coalesce('"' || encode(previous_hash, 'hex') || '"', 'null') || ',"hash":' || coalesce('"' || encode(hash, 'hex') || '"', 'null') || '}'`;

/** The log of the PostgreSQL event store, read in keyset pages: one short statement each, memory flat at any size. */
export class PostgresEventLog implements EventLog {
  readonly streamsTogether = true;

  constructor(private readonly pool: pg.Pool) {}

  async countEvents(): Promise<number> {
    const { rows } = await this.pool.query<{ count: string | number }>('SELECT count(*) AS count FROM events');
    return Number(rows[0].count);
  }

  /** By the (stream_id, stream_revision) key: stream after stream. */
  async *everyEvent(pageSize = PAGE): AsyncIterable<LoggedEvent[]> {
    // Before every stream id ('' is the least text) and every revision.
    let after = { streamId: '', revision: '-1' };
    for (;;) {
      const result = await this.pool.query<LoggedRow>({
        name: 'ledgerline-log-page',
        text: `SELECT ${LOGGED_COLUMNS} FROM events WHERE (stream_id, stream_revision) > ($1, $2::bigint) ORDER BY stream_id, stream_revision LIMIT $3`,
        values: [after.streamId, after.revision, pageSize],
      });
      const rows: LoggedRow[] = result.rows;
      if (rows.length === 0) return;
      yield rows.map(toLoggedEvent);
      if (rows.length < pageSize) return;
      const last: LoggedRow = rows[rows.length - 1];
      after = { streamId: last.stream_id, revision: String(last.stream_revision) };
    }
  }

  /**
   * By the events_by_user index: the user's events alone, whatever else the log holds. The next
   * page is read while the reader takes this one: two pages in memory at most.
   */
  async *exportPages(userId: string, upTo: GlobalPosition, pageSize = PAGE): AsyncIterable<string> {
    const page = (after: { commit: string; prepare: string }) =>
      // Planned for each page's values, not a generic plan.
      this.pool
        .query<{ commit_position: string; global_position: string | number; line: string }>({
          text: `SELECT transaction_id::text AS commit_position, global_position, ${EXPORT_LINE} AS line FROM events
                  WHERE metadata->>'userId' = $1
                    AND (transaction_id, global_position) > ($2::text::xid8, $3::bigint)
                    AND (transaction_id, global_position) <= ($4::text::xid8, $5::bigint)
                  ORDER BY transaction_id, global_position LIMIT $6`,
          values: [userId, after.commit, after.prepare, upTo.commit.toString(), upTo.prepare.toString(), pageSize],
        })
        .then(({ rows }) => rows);
    let next = page({ commit: '0', prepare: '0' });
    for (;;) {
      const rows = await next;
      if (rows.length === 0) return;
      const last = rows[rows.length - 1];
      next = rows.length < pageSize ? Promise.resolve([]) : page({ commit: last.commit_position, prepare: String(last.global_position) });
      // A reader that stops early leaves the read ahead unawaited: its failure is nobody's.
      next.catch(() => undefined);
      yield `${rows.map((row) => row.line).join('\n')}\n`;
    }
  }

  async close(): Promise<void> {
    // The pool is the caller's.
  }
}

function toLoggedEvent(row: LoggedRow): LoggedEvent {
  return { ...toRecordedEvent(row), previousHash: row.previous_hash, hash: row.hash };
}
