import { WrongExpectedRevisionError } from '../../core/events.js';
import { canonicalEventJson, chainHash, GENESIS_HASH } from './event-chain.js';
import type { EventLog, LoggedEvent } from './event-log.port.js';
import type { AppendGuard, EventStore } from './event-store.port.js';
import { event, metadata, stream } from './event-store-test-events.test-support.js';

export interface ChainHarness {
  readonly store: EventStore;
  readonly log: EventLog;
}

/** A guard that holds: on a store that checks guards in its append's transaction, the append goes that way. */
export const HOLDING_GUARD: AppendGuard = { condition: { sql: 'true', parameters: [] }, refusal: () => new Error('never') };

/** The named streams as the log keeps them, each in revision order. */
export async function loggedStreams(log: EventLog, streamIds: readonly string[]): Promise<Map<string, LoggedEvent[]>> {
  const wanted = new Map(streamIds.map((streamId) => [streamId, [] as LoggedEvent[]]));
  for await (const page of log.everyEvent()) for (const logged of page) wanted.get(logged.streamId)?.push(logged);
  for (const events of wanted.values()) events.sort((a, b) => (a.revision < b.revision ? -1 : 1));
  return wanted;
}

/** Where a stream's stored links differ from the chain worked out from its events: [] when none. */
export function chainProblems(events: readonly LoggedEvent[]): string[] {
  const problems: string[] = [];
  let link = GENESIS_HASH;
  for (const [index, logged] of events.entries()) {
    const expected = chainHash(link, canonicalEventJson(logged));
    if (logged.revision !== BigInt(index)) problems.push(`revision ${logged.revision} at ${index}`);
    if (!logged.previousHash?.equals(link)) problems.push(`revision ${logged.revision}: previous hash ${logged.previousHash?.toString('hex')}, not ${link.toString('hex')}`);
    if (!logged.hash?.equals(expected)) problems.push(`revision ${logged.revision}: hash ${logged.hash?.toString('hex')}, not ${expected.toString('hex')}`);
    link = expected;
  }
  return problems;
}

/** Every event store chains every append the same way (decision 0044): the behaviour both adapters must show. */
export function eventChainContract(name: string, harness: () => ChainHarness): void {
  describe(`${name} hash chain`, () => {
    it('chains every way of appending: a new stream, at a revision, at any revision, several events at once, many new streams at once, with guards', async () => {
      const { store, log } = harness();
      const [one, many] = [stream(), stream()];
      await store.appendToStream(one, [event('Opened', { amount: '-12.5000', note: 'Café ☕', nested: { b: [1, 2.5, null], a: true } })], 'no_stream');
      await store.appendToStream(one, [event('Renamed', { name: 'x' }), event('Renamed', { name: 'y' })], 0n);
      await store.appendToStream(one, [event('Noted', { text: '"quoted"\n' })], 'any');
      await store.appendToStream(one, [event('Guarded')], 3n, { guards: [HOLDING_GUARD] });
      await store.appendToStream(one, [event('GuardedToo'), event('GuardedThree')], 4n, { guards: [HOLDING_GUARD] });
      // More events at once than an append chains in its own statement on PostgreSQL (16).
      await store.appendToStream(one, Array.from({ length: 20 }, (_, index) => event('Bulk', { index })), 6n);
      // A stream id and a type JSON must escape: the appender's canonical JSON and the stored hash agree on it.
      const quoted = `${stream()}-"q\\é`;
      await store.appendToStream(quoted, [event('Said "so"'), event('Again\\')], 'no_stream');
      await store.appendToStream(quoted, [event('Third')], 1n);
      const guardedNew = stream();
      await store.appendToStream(guardedNew, [event('GuardedFirst'), event('GuardedSecond')], 'no_stream', { guards: [HOLDING_GUARD] });
      const created = [stream(), stream()];
      await store.appendToNewStreams([
        { streamId: many, events: [event('First'), event('Second')] },
        { streamId: created[0], events: [event('Only')] },
        { streamId: created[1], events: [event('A'), event('B'), event('C')] },
      ]);
      await store.appendToStream(many, [event('Third')], 1n);
      const streams = await loggedStreams(log, [one, many, guardedNew, quoted, ...created]);
      expect(streams.get(one)?.map((logged) => logged.type)).toEqual(['Opened', 'Renamed', 'Renamed', 'Noted', 'Guarded', 'GuardedToo', 'GuardedThree', ...Array.from({ length: 20 }, () => 'Bulk')]);
      expect(streams.get(quoted)).toHaveLength(3);
      expect(streams.get(guardedNew)).toHaveLength(2);
      expect(streams.get(many)?.map((logged) => logged.type)).toEqual(['First', 'Second', 'Third']);
      for (const [streamId, events] of streams) expect([streamId, chainProblems(events)]).toEqual([streamId, []]);
    });

    it('keeps one chain when many writers race for the same stream: each append that wins follows the one before it', async () => {
      const { store, log } = harness();
      const id = stream();
      await store.appendToStream(id, [event('Opened')], 'no_stream');
      const writer = async (worker: number) => {
        for (let done = 0; done < 5; ) {
          const current = (await store.readStream(id)).at(-1)?.revision ?? 0n;
          try {
            await store.appendToStream(id, [{ type: 'Written', data: { worker, done }, metadata: metadata() }], current);
            done += 1;
          } catch (error) {
            if (!(error instanceof WrongExpectedRevisionError)) throw error;
          }
        }
      };
      await Promise.all(Array.from({ length: 6 }, (_, worker) => writer(worker)));
      const events = (await loggedStreams(log, [id])).get(id) ?? [];
      expect(events).toHaveLength(31);
      expect(chainProblems(events)).toEqual([]);
    });

    it('reads back what was chained: the log gives data and metadata as appended, and the store reads them without the chain', async () => {
      const { store, log } = harness();
      const id = stream();
      const written = event('Opened', { amount: '1.5000' });
      await store.appendToStream(id, [written], 'no_stream');
      const [logged] = (await loggedStreams(log, [id])).get(id) ?? [];
      expect([logged.data, logged.metadata]).toEqual([written.data, written.metadata]);
      expect((await store.readStream(id))[0].metadata).toEqual(written.metadata);
    });
  });
}
