import { canonicalEventJson, chainOf, GENESIS_HASH } from '../../../infrastructure/event-store/event-chain.js';
import type { LoggedEvent } from '../../../infrastructure/event-store/event-log.port.js';
import { ChainVerification } from './chain-verification.js';

const metadata = { userId: 'u', actor: 'user' as const, requestId: 'r', causationId: 'r', correlationId: 'r', occurredAt: '2026-11-22T10:00:00.000Z', schemaVersion: 1 };

/** A stream of `length` events, chained as the store chains them. */
function chainedStream(streamId: string, length: number): LoggedEvent[] {
  const events = Array.from({ length }, (_, index) => ({
    id: `${streamId}-e${index}`,
    streamId,
    revision: BigInt(index),
    position: { commit: 1n, prepare: BigInt(index + 1) },
    type: index === 0 ? 'Opened' : 'Edited',
    data: { step: index },
    metadata,
  }));
  const links = chainOf(GENESIS_HASH, events.map(canonicalEventJson));
  return events.map((event, index) => ({ ...event, previousHash: links[index].previousHash, hash: links[index].hash }));
}

function verify(events: readonly LoggedEvent[], streamsTogether = true) {
  const verification = new ChainVerification(streamsTogether);
  for (const event of events) verification.check(event);
  return verification.finish();
}

describe('checking the hash chains of a log', () => {
  it('finds every stream intact when every event follows the one before it', () => {
    expect(verify([...chainedStream('a', 3), ...chainedStream('b', 2)])).toEqual({ streams: 2, events: 5, broken: [], unchained: { events: 0, streams: 0 }, intact: true });
  });

  it('names an event whose data was changed after it was written', () => {
    const stream = chainedStream('a', 4);
    stream[2] = { ...stream[2], data: { step: 99 } };
    const report = verify(stream);
    expect(report.broken).toEqual([expect.objectContaining({ streamId: 'a', revision: 2, eventId: 'a-e2', reason: 'content' })]);
    expect(report.intact).toBe(false);
  });

  it('names the event after one that was deleted', () => {
    const stream = chainedStream('a', 4);
    stream.splice(1, 1);
    expect(verify(stream).broken).toEqual([expect.objectContaining({ revision: 2, eventId: 'a-e2', reason: 'missing-predecessor', explanation: expect.stringContaining('revision 1 before it is missing') })]);
  });

  it('names a stream whose first event was deleted', () => {
    expect(verify(chainedStream('a', 3).slice(1)).broken).toEqual([expect.objectContaining({ revision: 1, reason: 'missing-predecessor' })]);
  });

  it('names the first of two events whose revisions were swapped', () => {
    const stream = chainedStream('a', 4);
    const [second, third] = [stream[1], stream[2]];
    stream[1] = { ...third, revision: 1n };
    stream[2] = { ...second, revision: 2n };
    expect(verify(stream).broken).toEqual([expect.objectContaining({ revision: 1, eventId: 'a-e2', reason: 'previous-hash' })]);
  });

  it('names an event moved to another stream, or whose stored hash was replaced', () => {
    const moved = { ...chainedStream('a', 1)[0], streamId: 'b' };
    expect(verify([moved]).broken).toEqual([expect.objectContaining({ streamId: 'b', reason: 'content' })]);
    const stream = chainedStream('a', 2);
    stream[1] = { ...stream[1], hash: Buffer.alloc(32, 7) };
    expect(verify(stream).broken).toEqual([expect.objectContaining({ revision: 1, reason: 'content' })]);
  });

  it('counts events not chained yet at the end of a stream as not vouched for, and an unchained event in the middle as vouched for by the chained one after it', () => {
    const tail = chainedStream('a', 3).map((event, index) => (index >= 1 ? { ...event, previousHash: null, hash: null } : event));
    expect(verify(tail)).toMatchObject({ broken: [], unchained: { events: 2, streams: 1 }, intact: false });
    const middle = chainedStream('a', 3).map((event, index) => (index === 1 ? { ...event, previousHash: null, hash: null } : event));
    expect(verify(middle)).toMatchObject({ broken: [], unchained: { events: 0, streams: 0 }, intact: true });
    const tampered = middle.map((event, index) => (index === 1 ? { ...event, data: { step: 99 } } : event));
    expect(verify(tampered).broken).toEqual([expect.objectContaining({ revision: 2, reason: 'previous-hash' })]);
  });

  it('follows interleaved streams when the log does not give each stream together (EventStoreDB’s $all)', () => {
    const [a, b] = [chainedStream('a', 3), chainedStream('b', 3)];
    const interleaved = [a[0], b[0], a[1], b[1], a[2], b[2]];
    expect(verify(interleaved, false)).toMatchObject({ streams: 2, events: 6, intact: true });
    interleaved[3] = { ...interleaved[3], data: { step: 7 } };
    expect(verify(interleaved, false).broken).toEqual([expect.objectContaining({ streamId: 'b', revision: 1 })]);
  });
});
