import canonicalize from 'canonicalize';
import fc from 'fast-check';
import type { EventMetadata } from '../../core/events.js';
import { canonicalEventJson, type ChainedContent, canonicalJson, chainHash, chainHashHex, chainOf, GENESIS_HASH } from './event-chain.js';

const metadata: EventMetadata = { userId: 'u', actor: 'user', requestId: 'r', causationId: 'r', correlationId: 'r', occurredAt: '2026-11-22T10:00:00.000Z', schemaVersion: 1 };
const created: ChainedContent = {
  id: '0b7e6a2c-1d0c-4f7e-9f7e-2a1f4c5d6e7f',
  streamId: 'transaction-1',
  revision: 0n,
  type: 'TransactionCreated',
  data: { name: 'Café ☕', z: [1, 2.5, null], amount: '-12.5000', n: 1e21, dropped: undefined },
  metadata,
};
/** The event's RFC 8785 form, written out by hand: keys sorted, no spaces, numbers as ECMAScript writes them. */
const CANONICAL =
  '{"data":{"amount":"-12.5000","n":1e+21,"name":"Café ☕","z":[1,2.5,null]},"id":"0b7e6a2c-1d0c-4f7e-9f7e-2a1f4c5d6e7f",' +
  '"metadata":{"actor":"user","causationId":"r","correlationId":"r","occurredAt":"2026-11-22T10:00:00.000Z","requestId":"r","schemaVersion":1,"userId":"u"},' +
  '"revision":0,"streamId":"transaction-1","type":"TransactionCreated"}';

describe('the hash chain of a stream (decision 0044)', () => {
  it('hashes the event’s id, stream, revision, type, data and metadata as RFC 8785 canonical JSON', () => {
    expect(canonicalEventJson(created)).toBe(CANONICAL);
  });

  it('is SHA-256 over the previous hash (32 zero bytes before a stream’s first event) and the canonical JSON’s UTF-8 bytes — the same hashes any SHA-256 gives', () => {
    // Computed apart from this code: python3 -c "import hashlib; print(hashlib.sha256(bytes(32) + CANONICAL.encode()).hexdigest())"
    const first = chainHash(GENESIS_HASH, CANONICAL);
    expect(first.toString('hex')).toBe('1d90de1cd9649330addce0a17b61df4ba69695962bc6066ac980ab79b0fb4961');
    expect(chainHash(first, '{}').toString('hex')).toBe('34c7ff2a6828ebe3ebafb07c56709b722649b987a7633302f0de7565fbe8176e');
  });

  it('gives the same hash as hex, whatever the event’s length, on the append’s path', () => {
    const previous = chainHash(GENESIS_HASH, CANONICAL);
    for (const json of [CANONICAL, '{}', `{"long":"${'☕é'.repeat(20_000)}"}`, CANONICAL]) {
      expect(chainHashHex(previous.toString('hex'), json)).toBe(chainHash(previous, json).toString('hex'));
    }
  });

  it('links each event to the one before it', () => {
    const links = chainOf(GENESIS_HASH, [CANONICAL, '{}']);
    expect(links.map((link) => link.previousHash.toString('hex').slice(0, 8))).toEqual(['00000000', '1d90de1c']);
    expect(links[1].hash.toString('hex').slice(0, 8)).toBe('34c7ff2a');
  });

  it('writes every JSON value exactly as the canonicalize package (RFC 8785) does: keys by UTF-16 code units, numeric keys too, numbers as ECMAScript writes them', () => {
    const keys = fc.oneof(fc.string(), fc.constantFrom('10', '9', '1e3', '', 'é', '😀', '\u00ff', '\uffff', 'a\u0000b'));
    const json = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: 'small' }, fc.constant(null), fc.boolean(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer(), fc.string({ unit: 'grapheme' }), tie('array'), tie('object')),
      array: fc.array(tie('value'), { maxLength: 5 }),
      object: fc.dictionary(keys, tie('value'), { maxKeys: 6 }),
    })).value;
    fc.assert(fc.property(json, (value) => canonicalJson(value) === canonicalize(value)), { numRuns: 2000 });
    expect(canonicalJson({ b: [undefined, 1e-7, -0], a: { '10': 1, '9': 2, z: undefined } })).toBe(canonicalize({ b: [undefined, 1e-7, -0], a: { '10': 1, '9': 2, z: undefined } }));
    expect(() => canonicalJson({ amount: Number.NaN })).toThrow();
  });

  it('changes with every part it covers: the data, the revision, the stream, the key order never', () => {
    const hashOf = (changes: Partial<ChainedContent>) => chainHash(GENESIS_HASH, canonicalEventJson({ ...created, ...changes })).toString('hex');
    const original = hashOf({});
    expect(hashOf({ data: { ...(created.data as object), amount: '-13.0000' } })).not.toBe(original);
    expect(hashOf({ revision: 1n })).not.toBe(original);
    expect(hashOf({ streamId: 'transaction-2' })).not.toBe(original);
    expect(hashOf({ metadata: { ...metadata, actor: 'system' } })).not.toBe(original);
    expect(hashOf({ data: { z: [1, 2.5, null], n: 1e21, amount: '-12.5000', name: 'Café ☕' } })).toBe(original);
  });
});
