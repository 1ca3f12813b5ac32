import type pg from 'pg';
import type { EventMetadata } from '../../core/events.js';
import { canonicalEventJson, chainHash, GENESIS_HASH } from './event-chain.js';

/** Events per statement: each page is read, chained and written in two short statements. */
const PAGE = 1000;
const LOCK = 'ledgerline-chain-backfill';

export interface ChainBackfillOutcome {
  /** False when another backfill holds the lock: nothing was done here. */
  readonly ran: boolean;
  readonly chained: number;
  /** Events still without a hash: the event before them is missing (a stream with a gap). */
  readonly unchainable: number;
}

interface UnchainedRow {
  stream_id: string;
  stream_revision: string | number;
  event_id: string;
  type: string;
  data: unknown;
  metadata: EventMetadata;
}

/**
 * Gives every event stored before the hash chain its links (decision 0044), in pages through the
 * `events_unchained` index: what is left to do is the events without a hash, so a backfill
 * stopped anywhere goes on from there when run again, and one at a time runs (an advisory lock).
 * Appends meanwhile onto a stream not chained yet get no hash either; each pass takes what the
 * last one left, until a pass finds nothing it can chain.
 */
export async function backfillChain(pool: pg.Pool, onPage: (chained: number) => void = () => undefined, pageSize = PAGE): Promise<ChainBackfillOutcome> {
  const client = await pool.connect();
  try {
    const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock(hashtext($1)) AS locked', [LOCK]);
    if (!rows[0].locked) return { ran: false, chained: 0, unchainable: await unchainedCount(client) };
    try {
      let chained = 0;
      for (;;) {
        const passed = await backfillPass(client, pageSize, (count) => {
          chained += count;
          onPage(chained);
        });
        if (passed === 0) break;
      }
      return { ran: true, chained, unchainable: await unchainedCount(client) };
    } finally {
      await client.query('SELECT pg_advisory_unlock(hashtext($1))', [LOCK]);
    }
  } finally {
    client.release();
  }
}

export async function unchainedCount(client: pg.Pool | pg.PoolClient): Promise<number> {
  const { rows } = await client.query<{ count: string | number }>('SELECT count(*) AS count FROM events WHERE hash IS NULL');
  return Number(rows[0].count);
}

/** One walk over the events without a hash, stream by stream: how many it chained. */
async function backfillPass(client: pg.PoolClient, pageSize: number, onChained: (count: number) => void): Promise<number> {
  let chained = 0;
  let after = { streamId: '', revision: '-1' };
  // The hash of the last event chained in the stream the walk is in.
  let last: { streamId: string; revision: bigint; hash: Buffer } | null = null;
  for (;;) {
    const { rows } = await client.query<UnchainedRow>(
      `SELECT stream_id, stream_revision, event_id, type, data, metadata FROM events
        WHERE hash IS NULL AND (stream_id, stream_revision) > ($1, $2::bigint) ORDER BY stream_id, stream_revision LIMIT $3`,
      [after.streamId, after.revision, pageSize],
    );
    if (rows.length === 0) return chained;
    const stored = await storedHashesBefore(client, rows, last);
    const links: { streamId: string; revision: string; previousHash: string; hash: string }[] = [];
    for (const row of rows) {
      const revision = BigInt(row.stream_revision);
      const previous = revision === 0n ? GENESIS_HASH : last?.streamId === row.stream_id && last.revision === revision - 1n ? last.hash : stored.get(`${row.stream_id} ${revision - 1n}`);
      // No hash before it (a gap, or an event left unchained): not this pass's.
      if (!previous) continue;
      const hash = chainHash(previous, canonicalEventJson({ id: row.event_id, streamId: row.stream_id, revision, type: row.type, data: row.data, metadata: row.metadata }));
      links.push({ streamId: row.stream_id, revision: revision.toString(), previousHash: previous.toString('hex'), hash: hash.toString('hex') });
      last = { streamId: row.stream_id, revision, hash };
    }
    if (links.length > 0) {
      const updated = await client.query(
        `UPDATE events e SET previous_hash = decode(u.previous_hash, 'hex'), hash = decode(u.hash, 'hex')
           FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[]) AS u(stream_id, stream_revision, previous_hash, hash)
          WHERE e.stream_id = u.stream_id AND e.stream_revision = u.stream_revision AND e.hash IS NULL`,
        [links.map((link) => link.streamId), links.map((link) => link.revision), links.map((link) => link.previousHash), links.map((link) => link.hash)],
      );
      chained += updated.rowCount ?? 0;
      onChained(updated.rowCount ?? 0);
    }
    const end = rows[rows.length - 1];
    after = { streamId: end.stream_id, revision: String(end.stream_revision) };
  }
}

/** The stored hashes of the events just before each stream's first row of the page, where the walk does not have them. */
async function storedHashesBefore(client: pg.PoolClient, rows: readonly UnchainedRow[], last: { streamId: string; revision: bigint } | null): Promise<Map<string, Buffer>> {
  const firstRevisions = new Map<string, bigint>();
  for (const row of rows) if (!firstRevisions.has(row.stream_id)) firstRevisions.set(row.stream_id, BigInt(row.stream_revision));
  const asked = [...firstRevisions]
    .filter(([streamId, revision]) => revision > 0n && !(last?.streamId === streamId && last.revision === revision - 1n))
    .map(([streamId, revision]) => [streamId, revision - 1n] as const);
  if (asked.length === 0) return new Map();
  const { rows: found } = await client.query<{ stream_id: string; stream_revision: string | number; hash: Buffer }>(
    `SELECT e.stream_id, e.stream_revision, e.hash FROM events e JOIN unnest($1::text[], $2::bigint[]) AS w(stream_id, stream_revision)
        ON e.stream_id = w.stream_id AND e.stream_revision = w.stream_revision
      WHERE e.hash IS NOT NULL`,
    [asked.map(([streamId]) => streamId), asked.map(([, revision]) => revision.toString())],
  );
  return new Map(found.map((row) => [`${row.stream_id} ${BigInt(row.stream_revision)}`, row.hash]));
}
