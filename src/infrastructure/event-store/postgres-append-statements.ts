import { canonicalJson, chainHashHex, eventJsonOf, GENESIS_HASH, stampIds } from './event-chain.js';
import type { NewEvent, NewStream } from './event-store.port.js';

/**
 * The INSERTs of the PostgreSQL event store (decision 0044). The service writes each event's data
 * and metadata as canonical JSON and works out its links in the stream's hash chain from the hash
 * of the event at the expected revision, which it knows (the stream's head, `StreamHeads`); the
 * statement checks that hash in the same statement that checks the revision, and stores the links.
 * Two appends racing for a revision both follow the same hash and the unique key lets one in, so a
 * chain cannot fork. Each event travels as parameters of its own: nothing is escaped on either side.
 */

export interface AppendStatement {
  readonly name?: string;
  readonly text: string;
  readonly values: unknown[];
}

/** The statement, and the hash of the append's last event (null when the stream's chain has not reached it yet). */
export interface ChainedAppend {
  readonly statement: AppendStatement;
  readonly lastHash: Buffer | null;
}

const RETURNING = 'RETURNING stream_revision, transaction_id::text AS commit_position, global_position';

/**
 * $1 the stream, $2 the revision before the append's first event (-1: a new stream), $3 the inline
 * read models (or NULL), $4 the hash the first event follows. `follows` is read by the INSERT, so
 * that the planner cannot leave the check out.
 */
const BASE = {
  /** A new stream: the unique key refuses a stream that has a revision 0. */
  new: '(SELECT true AS follows WHERE $2::bigint = -1) base',
  /** After the stream's event at the expected revision, which must exist with that hash (else nothing is inserted). */
  expected: "(SELECT true AS follows FROM events WHERE stream_id = $1 AND stream_revision = $2::bigint AND hash IS NOT DISTINCT FROM decode($4::text, 'hex')) base",
  /** The same, checked by ledgerline_chain_follows, which refuses by an error (LL409, LL425, LL428) and names the read models ($3). */
  inline: "(SELECT ledgerline_chain_follows($1, $2::bigint, $3::text[], decode($4::text, 'hex')) AS follows) base",
};
type Base = keyof typeof BASE;

/** Appends of up to this many events run as named (prepared) statements, parsed and planned once per connection. */
const PREPARED_UP_TO = 16;
const PARAMETERS_PER_EVENT = 5;

function insertText(base: Base, events: number): string {
  const rows = Array.from({ length: events }, (_, index) => {
    const at = 5 + index * PARAMETERS_PER_EVENT;
    const previous = index === 0 ? '$4::text' : `$${at - 1}::text`;
    return `(${index + 1}, $${at}::text::uuid, $${at + 1}::text, $${at + 2}::text::jsonb, $${at + 3}::text::jsonb, decode(${previous}, 'hex'), decode($${at + 4}::text, 'hex'))`;
  });
  return `INSERT INTO events (event_id, stream_id, stream_revision, type, data, metadata, previous_hash, hash, applied_inline)
    SELECT e.id, $1, $2::bigint + e.ordinal, e.type, e.data, e.metadata, e.previous_hash, e.hash, $3::text[]
      FROM ${BASE[base]}, LATERAL (VALUES ${rows.join(', ')}) e(ordinal, id, type, data, metadata, previous_hash, hash)
     WHERE base.follows ORDER BY e.ordinal ${RETURNING}`;
}

const prepared = new Map<string, string>();

function insertOf(base: Base, events: number): { name?: string; text: string } {
  if (events > PREPARED_UP_TO) return { text: insertText(base, events) };
  const name = `ledgerline-append-${base}-${events}`;
  let text = prepared.get(name);
  if (text === undefined) {
    text = insertText(base, events);
    prepared.set(name, text);
  }
  return { name, text };
}

/** `previous` null: the stream's event at the expected revision has no hash yet (`ledgerline audit chain`), nor do these. */
function chainedAppend(base: Base, streamId: string, events: readonly (NewEvent & { id: string })[], before: bigint, previous: Buffer | null, inline: readonly string[] | null): ChainedAppend {
  let link = previous === null ? null : previous.toString('hex');
  const values: unknown[] = [streamId, before.toString(), inline, link];
  events.forEach((event, index) => {
    const data = canonicalJson(event.data);
    const metadata = canonicalJson(event.metadata);
    link = link === null ? null : chainHashHex(link, eventJsonOf(event.id, streamId, before + 1n + BigInt(index), event.type, data, metadata));
    values.push(event.id, event.type, data, metadata, link);
  });
  return { statement: { ...insertOf(base, events.length), values }, lastHash: link === null ? null : Buffer.from(link, 'hex') };
}

/**
 * One statement, no explicit transaction: the revision check rides on the INSERT itself (a
 * missing expected revision, or one whose hash is not `previous`, inserts nothing; a taken one
 * violates the unique key).
 */
export function appendStatement(streamId: string, events: readonly (NewEvent & { id: string })[], expected: bigint | 'no_stream', previous: Buffer | null): ChainedAppend {
  return expected === 'no_stream' ? chainedAppend('new', streamId, events, -1n, GENESIS_HASH, null) : chainedAppend('expected', streamId, events, expected, previous, null);
}

/**
 * The append of an inline write: it names the read models it projects into, and refuses by an
 * error — not an empty insert — when the expected revision is not the stream's last (LL409, or
 * the unique key), when the stream's previous event is not projected there yet (LL425), or when
 * its hash is not `previous` (LL428).
 */
export function inlineAppendStatement(streamId: string, events: readonly (NewEvent & { id: string })[], expected: bigint | 'no_stream', previous: Buffer | null, keys: readonly string[]): ChainedAppend {
  const inline = keys.length > 0 ? keys : null;
  return expected === 'no_stream' ? chainedAppend('new', streamId, events, -1n, GENESIS_HASH, inline) : chainedAppend('inline', streamId, events, expected, previous, inline);
}

/**
 * Skips every stream that has an event already; a stream created meanwhile by another writer
 * fails the statement. The events come as one text, a line each (their canonical JSON, which
 * holds each one's stream and revision), parsed once each and hashed by PostgreSQL, all at once:
 * a stream's first event follows the genesis hash. Beside them a line per event with the hash it
 * follows when that is not the genesis hash (hex), worked out here: only for the later events of
 * a stream created with several (most new streams get one event).
 */
const GENESIS_HEX = GENESIS_HASH.toString('hex');
const GENESIS = `'\\x${GENESIS_HEX}'::bytea`;
const NEW_STREAMS_STATEMENT = `WITH e AS MATERIALIZED (
    SELECT l.ordinal, l.line::jsonb AS body, l.previous_hash, sha256(l.previous_hash || convert_to(l.line, 'UTF8')) AS hash
      FROM (SELECT line, ordinal, coalesce(decode(nullif(previous, ''), 'hex'), ${GENESIS}) AS previous_hash
              FROM unnest(string_to_array($1::text, E'\\n'), string_to_array($2::text, E'\\n')) WITH ORDINALITY AS u(line, previous, ordinal)) l)
  INSERT INTO events (event_id, stream_id, stream_revision, type, data, metadata, applied_inline, previous_hash, hash)
  SELECT (e.body->>'id')::uuid, e.body->>'streamId', (e.body->>'revision')::bigint, e.body->>'type', e.body->'data', e.body->'metadata', $3::text[], e.previous_hash, e.hash
    FROM e
   WHERE NOT EXISTS (SELECT 1 FROM events existing WHERE existing.stream_id = e.body->>'streamId')
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

/** The bulk creation of streams (not prepared: planned for each batch's size), `keys` the inline read models it projects into. */
export function newStreamsStatement(events: readonly NewStreamEvent[], keys: readonly string[]): AppendStatement {
  const bodies: string[] = [];
  const previous: string[] = [];
  let link = GENESIS_HEX;
  events.forEach(({ streamId, revision, event }, index) => {
    const body = eventJsonOf(event.id, streamId, BigInt(revision), event.type, canonicalJson(event.data), canonicalJson(event.metadata));
    bodies.push(body);
    previous.push(revision === 0 ? '' : link);
    if (events[index + 1]?.streamId === streamId) link = chainHashHex(revision === 0 ? GENESIS_HEX : link, body);
  });
  return { text: NEW_STREAMS_STATEMENT, values: [bodies.join('\n'), previous.join('\n'), keys.length > 0 ? keys : null] };
}
