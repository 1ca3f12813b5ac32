import { comparePositions, type GlobalPosition } from '../../core/events.js';
import type { EventStore } from './event-store.port.js';
import { collect, event, readMine, stream } from './event-store-test-events.test-support.js';

/** Until the store's head has reached `position` (a transaction elsewhere on the server may hold it back a while). */
async function headReaching(store: EventStore, position: GlobalPosition): Promise<GlobalPosition> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const head = await store.headPosition();
    if (comparePositions(head, position) >= 0 || Date.now() > deadline) return head;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The contract's reads past the first event: from a revision, first of a type, the exact head, counts, one order. Part of `eventStoreContract`. */
export function eventStoreReadsContract(harness: () => { readonly store: EventStore }): void {
  it('reads a stream from a revision: that event and the later ones, nothing past the end, nothing of an unknown stream', async () => {
    const { store } = harness();
    const id = stream();
    await store.appendToStream(id, [event('E0'), event('E1'), event('E2'), event('E3')], 'no_stream');
    const from = async (fromRevision: bigint, streamId = id) => (await store.readStream(streamId, { fromRevision })).map((e) => [e.type, e.revision]);
    expect(await from(0n)).toEqual([['E0', 0n], ['E1', 1n], ['E2', 2n], ['E3', 3n]]);
    expect(await from(2n)).toEqual([['E2', 2n], ['E3', 3n]]);
    expect(await from(3n)).toEqual([['E3', 3n]]);
    expect(await from(4n)).toEqual([]);
    expect(await from(1n, stream())).toEqual([]);
    await store.appendToStream(id, [event('E4')], 3n);
    expect(await from(4n)).toEqual([['E4', 4n]]);
    expect((await store.readStream(id, {})).map((e) => e.type)).toEqual(['E0', 'E1', 'E2', 'E3', 'E4']);
  });

  it('finds the first event of a type in each of many streams in one read, and no key for a stream without one', async () => {
    const { store } = harness();
    const [twice, once, never] = [stream(), stream(), stream()];
    await store.appendToStream(twice, [event('Created'), event('Gone', { n: 1 }), event('Gone', { n: 2 })], 'no_stream');
    await store.appendToStream(once, [event('Created'), event('Renamed'), event('Gone', { n: 3 })], 'no_stream');
    await store.appendToStream(never, [event('Created')], 'no_stream');
    const found = await store.firstEventOfType([twice, once, never, stream(), once], 'Gone');
    expect([...found.keys()].sort()).toEqual([twice, once].sort());
    expect(found.get(twice)).toMatchObject({ streamId: twice, type: 'Gone', revision: 1n, data: { n: 1 } });
    expect(found.get(once)).toEqual((await store.readStream(once))[2]);
    expect(await store.firstEventOfType([], 'Gone')).toEqual(new Map());
  });

  it('gives as its head the position of the newest event, exactly', async () => {
    const { store } = harness();
    await store.appendToStream(stream(), [event('Older')], 'no_stream');
    const newest = await store.appendToStream(stream(), [event('Newer1'), event('Newer2')], 'no_stream');
    const head = await headReaching(store, newest.position);
    expect(head).toEqual(newest.position);
  });

  it('counts the events between two positions from the positions alone: 0 at or past, at least 1 before (or null: cannot tell)', async () => {
    const { store } = harness();
    const first = await store.appendToStream(stream(), [event('A')], 'no_stream');
    const last = await store.appendToStream(stream(), [event('B'), event('C')], 'no_stream');
    expect(await store.approximateEventsBetween(last.position, last.position)).toBe(0);
    expect(await store.approximateEventsBetween(last.position, first.position)).toBe(0);
    const between = await store.approximateEventsBetween(first.position, last.position);
    if (between !== null) expect(between).toBeGreaterThanOrEqual(1);
    expect(between === null || Number.isInteger(between)).toBe(true);
  });

  it('shows a subscriber and a reader of $all concurrent appends in one and the same order, none missing or twice', async () => {
    const { store } = harness();
    const before = await store.headPosition();
    const streamIds = Array.from({ length: 12 }, stream);
    const subscription = store.subscribeToAll({ after: before });
    const feed = collect(subscription, streamIds);
    try {
      await Promise.all(streamIds.map(async (streamId, i) => {
        await store.appendToStream(streamId, [event(`S${i}a`)], 'no_stream');
        await store.appendToStream(streamId, [event(`S${i}b`), event(`S${i}c`)], 0n);
      }));
      const delivered = await feed.atLeast(36);
      const read = await readMine(store, before, streamIds, 36);
      expect(read.map((e) => e.id)).toEqual(delivered.map((e) => e.id));
      expect(new Set(read.map((e) => e.id)).size).toBe(36);
      for (const streamId of streamIds) {
        expect(read.filter((e) => e.streamId === streamId).map((e) => e.revision)).toEqual([0n, 1n, 2n]);
      }
    } finally {
      await subscription.close();
    }
  });
}
