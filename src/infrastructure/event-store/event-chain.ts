import { hash } from 'node:crypto';
import type { EventMetadata } from '../../core/events.js';
import { timeOrderedId } from '../../core/ids.js';
import type { NewEvent } from './event-store.port.js';

/**
 * The hash chain of a stream (decision 0044). Each event's hash is SHA-256 over the hash of the
 * event before it in its stream (32 zero bytes before the first) followed by the UTF-8 bytes of
 * the event's canonical JSON (RFC 8785): its id, stream, revision, type, data and metadata — what
 * it says, and where in which stream it says it, so that a row changed, moved to another
 * revision or swapped with another is found.
 */
export const GENESIS_HASH: Buffer = Buffer.alloc(32);

/** What of an event its hash covers. */
export interface ChainedContent {
  readonly id: string;
  readonly streamId: string;
  readonly revision: bigint;
  readonly type: string;
  readonly data: unknown;
  readonly metadata: EventMetadata;
}

/**
 * The event as the hash reads it: RFC 8785 JSON of `{data, id, metadata, revision, streamId, type}`,
 * written as `eventJsonOf` assembles it from its parts (the PostgreSQL append assembles the same).
 */
export function canonicalEventJson(event: ChainedContent): string {
  if (omitted(event.data) || omitted(event.metadata)) return canonicalJson({ id: event.id, streamId: event.streamId, revision: Number(event.revision), type: event.type, data: event.data, metadata: event.metadata });
  return eventJsonOf(event.id, event.streamId, event.revision, event.type, canonicalJson(event.data), canonicalJson(event.metadata));
}

/** An event's canonical JSON from its canonical data and metadata: the six keys in order. */
export function eventJsonOf(id: string, streamId: string, revision: bigint, type: string, dataJson: string, metadataJson: string): string {
  return `{"data":${dataJson},"id":${JSON.stringify(id)},"metadata":${metadataJson},"revision":${revision},"streamId":${JSON.stringify(streamId)},"type":${JSON.stringify(type)}}`;
}

/**
 * RFC 8785 (JSON Canonicalization Scheme) of a JSON value: object keys sorted by their UTF-16 code
 * units, no whitespace, strings and numbers as ECMAScript's JSON.stringify writes them. What the
 * `canonicalize` package writes — a property test holds the two to it — without its scan of every
 * string for a lone surrogate, which stored text cannot hold (refused at the edge; jsonb refuses
 * its escape). On every append: an object whose keys are in order already and whose values are
 * all plain (the metadata) is JSON.stringify's, which writes keys in that same order.
 */
export function canonicalJson(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'object' && value !== null) {
    if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return canonicalJson((value as { toJSON(): unknown }).toJSON());
    return Array.isArray(value) ? arrayJson(value) : objectJson(value as Record<string, unknown>);
  }
  if (typeof value === 'number' && !Number.isFinite(value)) throw new Error(`${value} has no JSON form`);
  return JSON.stringify(value);
}

function arrayJson(array: readonly unknown[]): string {
  let text = '[';
  for (let index = 0; index < array.length; index += 1) text += `${index === 0 ? '' : ','}${omitted(array[index]) ? 'null' : canonicalJson(array[index])}`;
  return `${text}]`;
}

function objectJson(object: Record<string, unknown>): string {
  const keys = Object.keys(object);
  let inOrder = true;
  let plain = true;
  for (let index = 0; index < keys.length; index += 1) {
    if (index > 0 && keys[index - 1] > keys[index]) inOrder = false;
    if (!isPlainValue(object[keys[index]])) plain = false;
  }
  if (inOrder && plain) return JSON.stringify(object);
  if (!inOrder) keys.sort();
  let text = '';
  for (const key of keys) {
    const item = object[key];
    if (omitted(item)) continue;
    text += `${text === '' ? '{' : ','}${quotedKey(key)}${canonicalJson(item)}`;
  }
  return text === '' ? '{}' : `${text}}`;
}

/** A value JSON.stringify writes as RFC 8785 does. */
function isPlainValue(value: unknown): boolean {
  return value === null || typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value));
}

/** What JSON leaves out of an object (and writes as null in an array). */
function omitted(value: unknown): boolean {
  return value === undefined || typeof value === 'function' || typeof value === 'symbol';
}

/** `"key":`, kept for the few hundred keys events use (any more are written each time). */
const quotedKeys = new Map<string, string>();
const QUOTED_KEYS_KEPT = 2048;

function quotedKey(key: string): string {
  let quoted = quotedKeys.get(key);
  if (quoted === undefined) {
    quoted = `${JSON.stringify(key)}:`;
    if (quotedKeys.size < QUOTED_KEYS_KEPT) quotedKeys.set(key, quoted);
  }
  return quoted;
}

/** SHA-256 over the previous hash and the canonical JSON. */
export function chainHash(previousHash: Buffer, canonicalJson: string): Buffer {
  return Buffer.from(chainHashHex(previousHash.toString('hex'), canonicalJson), 'hex');
}

/**
 * `chainHash` with the hashes as hex, as the append sends them: the input written into one reused
 * buffer and hashed by one `crypto.hash` call — no hash object, no Buffer allocated per event (a
 * third of what a SHA-256 costs Node 20 here).
 */
export function chainHashHex(previousHex: string, canonicalJson: string): string {
  input.write(previousHex, 0, 32, 'hex');
  const written = input.write(canonicalJson, 32, 'utf8');
  // A text that may not have fitted whole (write stops before a character that does not fit): a bigger buffer.
  if (32 + written > input.length - 4) {
    input = Buffer.allocUnsafe(2 * (32 + Buffer.byteLength(canonicalJson, 'utf8')));
    return chainHashHex(previousHex, canonicalJson);
  }
  return hash('sha256', input.subarray(0, 32 + written), 'hex');
}

/** chainHashHex's input, grown to the longest event met. */
let input = Buffer.allocUnsafe(16 * 1024);

export interface ChainLink {
  readonly previousHash: Buffer;
  readonly hash: Buffer;
}

/** The links of consecutive events of one stream, the first following `previousHash`. */
export function chainOf(previousHash: Buffer, canonicalJsons: readonly string[]): ChainLink[] {
  let link = previousHash;
  return canonicalJsons.map((json) => {
    const hash = chainHash(link, json);
    const chained = { previousHash: link, hash };
    link = hash;
    return chained;
  });
}

/** Each event's canonical JSON, at the revisions from `firstRevision` on. */
export function canonicalBodies(streamId: string, events: readonly (NewEvent & { id: string })[], firstRevision: bigint): string[] {
  return events.map((event, index) => canonicalEventJson({ id: event.id, streamId, revision: firstRevision + BigInt(index), type: event.type, data: event.data, metadata: event.metadata }));
}

/** The events with the ids the store gives those that came without one. */
export function stampIds<Event extends NewEvent>(events: readonly Event[]): (Event & { id: string })[] {
  return events.map((event) => ({ ...event, id: event.id ?? timeOrderedId() }));
}
