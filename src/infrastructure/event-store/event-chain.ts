import { createHash } from 'node:crypto';
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

/** The event as the hash reads it: RFC 8785 JSON of `{data, id, metadata, revision, streamId, type}`. */
export function canonicalEventJson(event: ChainedContent): string {
  return canonicalJson({ id: event.id, streamId: event.streamId, revision: Number(event.revision), type: event.type, data: event.data, metadata: event.metadata });
}

/**
 * RFC 8785 (JSON Canonicalization Scheme) of a JSON value: object keys sorted by their UTF-16 code
 * units, no whitespace, strings and numbers as ECMAScript's JSON.stringify writes them. What the
 * `canonicalize` package writes — a property test holds the two to it — without its scan of every
 * string for a lone surrogate, which stored text cannot hold (refused at the edge; jsonb refuses
 * its escape): twice as fast, on every append.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'number' && !Number.isFinite(value)) throw new Error(`${value} has no JSON form`);
    return JSON.stringify(value);
  }
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return canonicalJson((value as { toJSON(): unknown }).toJSON());
  if (Array.isArray(value)) {
    let text = '[';
    for (let index = 0; index < value.length; index += 1) text += `${index === 0 ? '' : ','}${omitted(value[index]) ? 'null' : canonicalJson(value[index])}`;
    return `${text}]`;
  }
  let text = '{';
  for (const key of Object.keys(value).sort()) {
    const item = (value as Record<string, unknown>)[key];
    if (omitted(item)) continue;
    text += `${text === '{' ? '' : ','}${JSON.stringify(key)}:${canonicalJson(item)}`;
  }
  return `${text}}`;
}

/** What JSON leaves out of an object (and writes as null in an array). */
function omitted(value: unknown): boolean {
  return value === undefined || typeof value === 'function' || typeof value === 'symbol';
}

/** SHA-256 over the previous hash and the canonical JSON. */
export function chainHash(previousHash: Buffer, canonicalJson: string): Buffer {
  return createHash('sha256').update(previousHash).update(canonicalJson, 'utf8').digest();
}

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
