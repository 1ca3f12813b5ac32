import { comparePositions, type RecordedEvent, WrongExpectedRevisionError } from '../../core/events.js';
import type { EventStore, NewEvent } from './event-store.port.js';
import { collect, event, readMine, stream } from './event-store-test-events.test-support.js';
import { eventStoreReadsContract } from './event-store-reads-contract.test-support.js';

export { collect, event, readMine, stream } from './event-store-test-events.test-support.js';

/** Holds one append's transaction open until `commit` — only stores with client transactions can. */
export type OpenAppend = (streamId: string, events: readonly NewEvent[]) => Promise<{ commit(): Promise<void> }>;

export interface EventStoreHarness {
  readonly store: EventStore;
}

export interface EventStoreCapabilities {
  /** Stores with client transactions: the contract then also holds an append open while later ones commit. */
  readonly openAppend?: OpenAppend;
}

/**
 * The behaviour every EventStore adapter must show; each adapter's spec runs it against a real
 * server. Every test runs for every adapter, but the one that needs `capabilities.openAppend`,
 * which is registered only where the store has it (never skipped from inside a test).
 */
export function eventStoreContract(name: string, harness: () => EventStoreHarness, capabilities: EventStoreCapabilities = {}): void {
  describe(`${name} event store contract`, () => {
    eventStoreReadsContract(harness);

    it('appends to a new stream and reads it back in order with data and metadata intact', async () => {
      const { store } = harness();
      const id = stream();
      const first = event('Opened', { amount: '-12.5000', nested: { tags: ['a', 'b'] }, note: null });
      const result = await store.appendToStream(id, [first, event('Renamed', { name: 'Café ☕' })], 'no_stream');
      expect(result.nextExpectedRevision).toBe(1n);
      const events = await store.readStream(id);
      expect(events.map((e) => [e.type, e.revision])).toEqual([['Opened', 0n], ['Renamed', 1n]]);
      expect(events[0].data).toEqual({ amount: '-12.5000', nested: { tags: ['a', 'b'] }, note: null });
      expect(events[0].metadata).toEqual(first.metadata);
      expect(events[1].data).toEqual({ name: 'Café ☕' });
      expect(comparePositions(events[1].position, result.position)).toBe(0);
    });

    it('reads an unknown stream as empty', async () => {
      expect(await harness().store.readStream(stream())).toEqual([]);
    });

    it('appends at the expected revision and refuses a stale one with a conflict', async () => {
      const { store } = harness();
      const id = stream();
      await store.appendToStream(id, [event('A')], 'no_stream');
      await store.appendToStream(id, [event('B')], 0n);
      await expect(store.appendToStream(id, [event('C')], 0n)).rejects.toBeInstanceOf(WrongExpectedRevisionError);
      await expect(store.appendToStream(id, [event('C')], 'no_stream')).rejects.toBeInstanceOf(WrongExpectedRevisionError);
      await expect(store.appendToStream(id, [event('C')], 5n)).rejects.toBeInstanceOf(WrongExpectedRevisionError);
      await expect(store.appendToStream(stream(), [event('C')], 0n)).rejects.toBeInstanceOf(WrongExpectedRevisionError);
      const appended = await store.appendToStream(id, [event('C')], 'any');
      expect(appended.nextExpectedRevision).toBe(2n);
      expect((await store.readStream(id)).map((e) => e.type)).toEqual(['A', 'B', 'C']);
    });

    it('lets exactly one of two racing appends at the same revision win', async () => {
      const { store } = harness();
      const id = stream();
      await store.appendToStream(id, [event('A')], 'no_stream');
      const outcomes = await Promise.allSettled([store.appendToStream(id, [event('B1')], 0n), store.appendToStream(id, [event('B2')], 0n)]);
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
      expect(outcomes.filter((o) => o.status === 'rejected' && o.reason instanceof WrongExpectedRevisionError)).toHaveLength(1);
      expect(await store.readStream(id)).toHaveLength(2);
    });

    it('creates many streams at once, leaves the ones that exist as they are and names them', async () => {
      const { store } = harness();
      const [a, b, c] = [stream(), stream(), stream()];
      await store.appendToStream(b, [event('B0')], 'no_stream');
      const result = await store.appendToNewStreams([
        { streamId: a, events: [event('A0'), event('A1')] },
        { streamId: b, events: [event('B-again')] },
        { streamId: c, events: [event('C0')] },
      ]);
      expect(result.existing).toEqual([b]);
      const read = await store.readStreams([a, b, c, stream()]);
      expect([...read.values()].map((events) => events.map((e) => [e.type, e.revision]))).toEqual([[['A0', 0n], ['A1', 1n]], [['B0', 0n]], [['C0', 0n]], []]);
      const last = [...read.get(a)!, ...read.get(c)!].reduce((latest, e) => (comparePositions(e.position, latest.position) > 0 ? e : latest));
      expect(comparePositions(result.position!, last.position)).toBe(0);

      const again = await store.appendToNewStreams([{ streamId: a, events: [event('A-again')] }, { streamId: c, events: [event('C-again')] }]);
      expect(again).toEqual({ existing: [a, c], position: null, appliedInline: [] });
      expect((await store.readStream(a)).map((e) => e.type)).toEqual(['A0', 'A1']);
    });

    it('creates each of many streams once when two writers race to create them', async () => {
      const { store } = harness();
      const ids = Array.from({ length: 40 }, () => stream());
      const batch = (writer: string) => ids.map((streamId) => ({ streamId, events: [event(`${writer}0`), event(`${writer}1`)] }));
      const [one, two] = await Promise.all([store.appendToNewStreams(batch('X')), store.appendToNewStreams(batch('Y'))]);
      expect([...one.existing, ...two.existing].sort()).toEqual([...ids].sort());
      for (const events of (await store.readStreams(ids)).values()) {
        expect(events.map((e) => e.type)).toEqual(expect.arrayContaining([expect.stringMatching(/^[XY]0$/)]));
        expect(new Set(events.map((e) => e.type[0]))).toHaveProperty('size', 1);
        expect(events.map((e) => e.revision)).toEqual([0n, 1n]);
      }
    });

    it('reads all streams from a position in one global order', async () => {
      const { store } = harness();
      const before = await store.headPosition();
      const a = stream();
      const b = stream();
      await store.appendToStream(a, [event('A1')], 'no_stream');
      await store.appendToStream(b, [event('B1'), event('B2')], 'no_stream');
      await store.appendToStream(a, [event('A2')], 0n);
      const mine = await readMine(store, before, [a, b], 4);
      expect(mine.map((e) => e.type)).toEqual(['A1', 'B1', 'B2', 'A2']);
      const all = await store.readAll({ after: before, maxCount: 10_000 });
      for (let i = 1; i < all.length; i += 1) expect(comparePositions(all[i - 1].position, all[i].position)).toBeLessThan(0);
      const afterSecond = await store.readAll({ after: mine[1].position, maxCount: 2 });
      expect(afterSecond.map((e) => e.type)).toEqual(['B2', 'A2']);
      const onlyA = await store.readAll({ after: before, maxCount: 10_000, eventTypes: ['A2'] });
      expect(onlyA.filter((e) => e.streamId === a).map((e) => e.type)).toEqual(['A2']);
      expect(comparePositions(await store.headPosition(), mine[3].position)).toBeGreaterThanOrEqual(0);
      expect(comparePositions(await store.committedHeadPosition(), mine[3].position)).toBeGreaterThanOrEqual(0);
    });

    it('delivers past events and then live appends to a subscriber, in order', async () => {
      const { store } = harness();
      const before = await store.headPosition();
      const id = stream();
      await store.appendToStream(id, [event('Past')], 'no_stream');
      const subscription = store.subscribeToAll({ after: before });
      const feed = collect(subscription, [id]);
      try {
        expect((await feed.atLeast(1)).map((e) => e.type)).toEqual(['Past']);
        await store.appendToStream(id, [event('Live1'), event('Live2')], 0n);
        expect((await feed.atLeast(3)).map((e) => e.type)).toEqual(['Past', 'Live1', 'Live2']);
      } finally {
        await subscription.close();
      }
    });

    it('delivers every event of many concurrent writers exactly once, in position order', async () => {
      const { store } = harness();
      const before = await store.headPosition();
      const streamIds = Array.from({ length: 20 }, stream);
      const subscription = store.subscribeToAll({ after: before });
      const feed = collect(subscription, streamIds);
      try {
        const writes = streamIds.map((streamId, i) => store.appendToStream(streamId, [event(`W${i}`), event(`W${i}`)], 'no_stream'));
        await Promise.all(writes);
        const received = await feed.atLeast(40);
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(feed.received).toHaveLength(40);
        expect(new Set(received.map((e) => e.id)).size).toBe(40);
        for (let i = 1; i < received.length; i += 1) expect(comparePositions(received[i - 1].position, received[i].position)).toBeLessThan(0);
      } finally {
        await subscription.close();
      }
    });

    if (capabilities.openAppend) heldOpenAppendContract(harness, capabilities.openAppend);
  });
}

/** Needs a store whose appends can be held open from the client: PostgreSQL's transactions. */
function heldOpenAppendContract(harness: () => EventStoreHarness, openAppend: OpenAppend): void {
  it('skips no event when an earlier append commits after later ones', async () => {
    const { store } = harness();
    const before = await store.headPosition();
    const [slowStream, fastStream1, fastStream2] = [stream(), stream(), stream()];
    const subscription = store.subscribeToAll({ after: before });
    const feed = collect(subscription, [slowStream, fastStream1, fastStream2]);
    const slow = await openAppend(slowStream, [event('Slow')]);
    let deliveredWhileOpen: RecordedEvent[];
    try {
      await store.appendToStream(fastStream1, [event('Fast1')], 'no_stream');
      const fast2 = await store.appendToStream(fastStream2, [event('Fast2')], 'no_stream');
      await new Promise((resolve) => setTimeout(resolve, 700));
      deliveredWhileOpen = [...feed.received];
      // The feed's head stays behind the open append; the committed head is the last commit.
      expect(comparePositions(await store.headPosition(), fast2.position)).toBeLessThan(0);
      expect(comparePositions(await store.committedHeadPosition(), fast2.position)).toBeGreaterThanOrEqual(0);
    } finally {
      await slow.commit();
    }
    try {
      // While the slow append was uncommitted, the later commits must not have been delivered past it.
      expect(deliveredWhileOpen).toEqual([]);
      const received = await feed.atLeast(3);
      expect(received.map((e) => e.type)).toEqual(['Slow', 'Fast1', 'Fast2']);
      const replay = await readMine(store, before, [slowStream, fastStream1, fastStream2], 3);
      expect(replay.map((e) => e.type)).toEqual(['Slow', 'Fast1', 'Fast2']);
    } finally {
      await subscription.close();
    }
  });
}
