import { canonicalBodies, chainHash, GENESIS_HASH, stampIds } from './event-chain.js';
import type { NewEvent, NewStream } from './event-store.port.js';

/**
 * The INSERTs of the PostgreSQL event store. Each event travels as its canonical JSON (decision
 * 0044), from which the row's id, type, data and metadata are taken, and which is hashed after the
 * previous event's hash, read in the same statement. The events of an append go as one text, a
 * line each: canonical JSON holds no newline (JSON escapes one in a string), and one text costs
 * neither side the escaping of an array literal. One event (most appends) is hashed in the
 * statement itself; several by `ledgerline_event_chain`, one after the other.
 */

export interface AppendStatement {
  readonly name: string;
  readonly text: string;
  readonly values: unknown[];
}

const GENESIS = `'\\x${GENESIS_HASH.toString('hex')}'::bytea`;
const RETURNING = 'RETURNING stream_revision, transaction_id::text AS commit_position, global_position';

/** Where an append's first event goes, and the hash it follows: `base(next, hash)`. */
const BASE = {
  /** A new stream: revision 0, after the genesis hash. */
  new: `(SELECT 0::bigint AS next, ${GENESIS} AS hash) base`,
  /** After the stream's event at the expected revision ($3), which must exist (else nothing is inserted). */
  expected: '(SELECT stream_revision + 1 AS next, hash FROM events WHERE stream_id = $1 AND stream_revision = $3::bigint) base',
  /** The same, checked by ledgerline_chain_after, which refuses by an error (LL409, LL425) and names the read models ($4). */
  inline: '(SELECT $3::bigint + 1 AS next, ledgerline_chain_after($1, $3::bigint, $4::text[]) AS hash) base',
};

function chainedInsert(name: string, base: string, events: number, appliedInline: string | null): Omit<AppendStatement, 'values'> {
  const columns = `event_id, stream_id, stream_revision, type, data, metadata, previous_hash, hash${appliedInline ? ', applied_inline' : ''}`;
  const inline = appliedInline ? `, ${appliedInline}::text[]` : '';
  if (events === 1) {
    return {
      name: `${name}-one`,
      text: `WITH b AS MATERIALIZED (SELECT $2::text::jsonb AS body)
        INSERT INTO events (${columns})
        SELECT (b.body->>'id')::uuid, $1, base.next, b.body->>'type', b.body->'data', b.body->'metadata', base.hash, sha256(base.hash || convert_to($2::text, 'UTF8'))${inline}
          FROM ${base}, b ${RETURNING}`,
    };
  }
  return {
    name: `${name}-many`,
    text: `INSERT INTO events (${columns})
      SELECT (c.body->>'id')::uuid, $1, base.next + c.ordinal - 1, c.body->>'type', c.body->'data', c.body->'metadata', c.previous_hash, c.hash${inline}
        FROM ${base}, ledgerline_event_chain(base.hash, $2::text) c ORDER BY c.ordinal ${RETURNING}`,
  };
}

/**
 * One statement, no explicit transaction: the revision check rides on the INSERT itself
 * (a missing expected revision inserts nothing; a taken one violates the unique key). The hot
 * path runs as named (prepared) statements: parsed and planned once per connection.
 */
export function appendStatement(streamId: string, events: readonly NewEvent[], expected: bigint | 'no_stream'): AppendStatement {
  const stamped = stampIds(events);
  if (expected === 'no_stream') {
    return { ...chainedInsert('ledgerline-append-chained-new', BASE.new, events.length, null), values: [streamId, canonicalBodies(streamId, stamped, 0n).join('\n')] };
  }
  return {
    ...chainedInsert('ledgerline-append-chained', BASE.expected, events.length, null),
    values: [streamId, canonicalBodies(streamId, stamped, expected + 1n).join('\n'), expected.toString()],
  };
}

/**
 * The append of an inline write: it names the read models it projects into, and refuses by an
 * error — not an empty insert — when the expected revision is not the stream's last (LL409, or
 * the unique key), or when the stream's previous event is not projected there yet (LL425).
 */
export function inlineAppendStatement(streamId: string, events: readonly (NewEvent & { id: string })[], expected: bigint | 'no_stream', keys: readonly string[]): AppendStatement {
  const inline = keys.length > 0 ? keys : null;
  if (expected === 'no_stream') {
    return { ...chainedInsert('ledgerline-append-chained-inline-new', BASE.new, events.length, '$3'), values: [streamId, canonicalBodies(streamId, events, 0n).join('\n'), inline] };
  }
  return {
    ...chainedInsert('ledgerline-append-chained-inline', BASE.inline, events.length, '$4'),
    values: [streamId, canonicalBodies(streamId, events, expected + 1n).join('\n'), expected.toString(), inline],
  };
}

/**
 * Skips every stream that has an event already; a stream created meanwhile by another writer
 * fails the statement. The events come as one text, a line each — `stream id`, revision, previous
 * hash, hash (hex) and the canonical JSON, apart by tabs (neither holds a raw tab or newline) —
 * which PostgreSQL takes apart faster than the client can escape arrays or a JSON document of
 * them; their links are worked out here, each new stream's from the genesis hash.
 */
export const NEW_STREAMS_STATEMENT = `INSERT INTO events (event_id, stream_id, stream_revision, type, data, metadata, applied_inline, previous_hash, hash)
  SELECT (e.body->>'id')::uuid, e.stream_id, e.revision, e.body->>'type', e.body->'data', e.body->'metadata', $2::text[], decode(e.previous_hash, 'hex'), decode(e.hash, 'hex')
    FROM (SELECT l.ordinal, split_part(l.line, E'\\t', 1) AS stream_id, split_part(l.line, E'\\t', 2)::bigint AS revision, split_part(l.line, E'\\t', 3) AS previous_hash,
                 split_part(l.line, E'\\t', 4) AS hash, split_part(l.line, E'\\t', 5)::jsonb AS body
            FROM string_to_table($1::text, E'\\n') WITH ORDINALITY AS l(line, ordinal) OFFSET 0) e
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

/** `NEW_STREAMS_STATEMENT`'s text: every event on a line of its own, with its place and its links. */
export function newStreamsDocument(events: readonly NewStreamEvent[]): string {
  let link = GENESIS_HASH;
  return events
    .map(({ streamId, revision, event }) => {
      const [body] = canonicalBodies(streamId, [event], BigInt(revision));
      const previous = revision === 0 ? GENESIS_HASH : link;
      link = chainHash(previous, body);
      return `${streamId}\t${revision}\t${previous.toString('hex')}\t${link.toString('hex')}\t${body}`;
    })
    .join('\n');
}
