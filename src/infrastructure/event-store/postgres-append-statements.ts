import { canonicalBodies, chainOf, GENESIS_HASH, stampIds } from './event-chain.js';
import type { NewEvent, NewStream } from './event-store.port.js';

/**
 * The INSERTs of the PostgreSQL event store. Each event travels as its canonical JSON (decision
 * 0044), from which the row's id, type, data and metadata are taken, and which
 * `ledgerline_event_chain` hashes after the previous event's hash, read in the same statement.
 */

export interface AppendStatement {
  readonly name: string;
  readonly text: string;
  readonly values: unknown[];
}

const GENESIS = `'\\x${GENESIS_HASH.toString('hex')}'::bytea`;
const COLUMNS = 'event_id, stream_id, stream_revision, type, data, metadata, previous_hash, hash';
const FROM_BODY = `(c.body->>'id')::uuid, $1, base.next + c.ordinal - 1, c.body->>'type', c.body->'data', c.body->'metadata', c.previous_hash, c.hash`;
const RETURNING = 'RETURNING stream_revision, transaction_id::text AS commit_position, global_position';

/**
 * One statement, no explicit transaction: the revision check rides on the INSERT itself
 * (a missing expected revision inserts nothing; a taken one violates the unique key). The hot
 * path runs as named (prepared) statements: parsed and planned once per connection.
 */
export function appendStatement(streamId: string, events: readonly NewEvent[], expected: bigint | 'no_stream'): AppendStatement {
  const stamped = stampIds(events);
  if (expected === 'no_stream') {
    return {
      name: 'ledgerline-append-chained-new',
      text: `INSERT INTO events (${COLUMNS})
        SELECT ${FROM_BODY} FROM (SELECT 0::bigint AS next) base, ledgerline_event_chain(${GENESIS}, $2::text[]) c ORDER BY c.ordinal ${RETURNING}`,
      values: [streamId, canonicalBodies(streamId, stamped, 0n)],
    };
  }
  return {
    name: 'ledgerline-append-chained',
    text: `INSERT INTO events (${COLUMNS})
      SELECT ${FROM_BODY}
        FROM (SELECT stream_revision + 1 AS next, hash FROM events WHERE stream_id = $1 AND stream_revision = $3::bigint) base,
             ledgerline_event_chain(base.hash, $2::text[]) c
       ORDER BY c.ordinal ${RETURNING}`,
    values: [streamId, canonicalBodies(streamId, stamped, expected + 1n), expected.toString()],
  };
}

/**
 * The append of an inline write: it names the read models it projects into, and refuses by an
 * error — not an empty insert — when the expected revision is not the stream's last (LL409, or
 * the unique key), or when the stream's previous event is not projected there yet (LL425).
 */
export function inlineAppendStatement(streamId: string, events: readonly (NewEvent & { id: string })[], expected: bigint | 'no_stream', keys: readonly string[]): AppendStatement {
  const inline = keys.length > 0 ? keys : null;
  const columns = `${COLUMNS}, applied_inline`;
  if (expected === 'no_stream') {
    return {
      name: 'ledgerline-append-chained-inline-new',
      text: `INSERT INTO events (${columns})
        SELECT ${FROM_BODY}, $3::text[] FROM (SELECT 0::bigint AS next) base, ledgerline_event_chain(${GENESIS}, $2::text[]) c ORDER BY c.ordinal ${RETURNING}`,
      values: [streamId, canonicalBodies(streamId, events, 0n), inline],
    };
  }
  return {
    name: 'ledgerline-append-chained-inline',
    text: `INSERT INTO events (${columns})
      SELECT ${FROM_BODY}, $3::text[]
        FROM (SELECT $4::bigint + 1 AS next) base, ledgerline_event_chain(ledgerline_chain_after($1, $4::bigint, $3::text[]), $2::text[]) c
       ORDER BY c.ordinal ${RETURNING}`,
    values: [streamId, canonicalBodies(streamId, events, expected + 1n), inline, expected.toString()],
  };
}

/**
 * Skips every stream that has an event already; a stream created meanwhile by another writer
 * fails the statement. The events come as one JSON document, which PostgreSQL takes apart faster
 * than the client can escape six arrays of them; their links are worked out here, each new
 * stream's from the genesis hash.
 */
export const NEW_STREAMS_STATEMENT = `INSERT INTO events (event_id, stream_id, stream_revision, type, data, metadata, applied_inline, previous_hash, hash)
  SELECT e.id, e.stream_id, e.revision, e.type, e.data, e.metadata, $2::text[], decode(e.previous_hash, 'hex'), decode(e.hash, 'hex')
    FROM jsonb_to_recordset($1::jsonb) AS e(ordinal int, id uuid, stream_id text, revision bigint, type text, data jsonb, metadata jsonb, previous_hash text, hash text)
   WHERE NOT EXISTS (SELECT 1 FROM events existing WHERE existing.stream_id = e.stream_id)
   ORDER BY e.ordinal
  RETURNING stream_id, transaction_id::text AS commit_position, global_position`;

export interface NewStreamEvent {
  readonly streamId: string;
  readonly revision: number;
  readonly event: NewEvent & { id: string };
}

/** The events of new streams, stamped with ids, in order. */
export function newStreamEvents(streams: readonly NewStream[]): NewStreamEvent[] {
  return streams.flatMap(({ streamId, events }) => stampIds(events).map((event, revision) => ({ streamId, revision, event })));
}

/** `NEW_STREAMS_STATEMENT`'s document: every event with its place and its link. */
export function newStreamsDocument(events: readonly NewStreamEvent[]): string {
  const links = new Map<string, Buffer>();
  return JSON.stringify(
    events.map(({ streamId, revision, event }, ordinal) => {
      const previous = revision === 0 ? GENESIS_HASH : (links.get(streamId) as Buffer);
      const [link] = chainOf(previous, canonicalBodies(streamId, [event], BigInt(revision)));
      links.set(streamId, link.hash);
      return { ordinal, id: event.id, stream_id: streamId, revision, type: event.type, data: event.data, metadata: event.metadata, previous_hash: link.previousHash.toString('hex'), hash: link.hash.toString('hex') };
    }),
  );
}
