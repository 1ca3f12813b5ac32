import { EventStoreDBClient, FORWARDS, START } from '@eventstore/db-client';
import { eventStoreContract } from './event-store-contract.test-support.js';
import { event, stream } from './event-store-test-events.test-support.js';
import { EventStoreDbEventStore } from './eventstoredb-event-store.js';
import { eventChainContract } from './event-chain-contract.test-support.js';
import { EventStoreDbEventLog } from './eventstoredb-event-log.js';

const url = process.env.EVENTSTORE_URL;

if (url) {
  let store: EventStoreDbEventStore;
  let log: EventStoreDbEventLog;
  let client: EventStoreDBClient;
  beforeAll(() => {
    store = new EventStoreDbEventStore(url);
    log = new EventStoreDbEventLog(url);
    client = EventStoreDBClient.connectionString(url);
  });
  afterAll(async () => {
    await store.close();
    await log.close();
    await client.dispose();
  });

  // The whole suite PostgreSQL runs, but the test that holds an append open (no client transactions here).
  eventStoreContract('EventStoreDB', () => ({ store }));
  eventChainContract('EventStoreDB', () => ({ store, log }));

  describe('EventStoreDB adapter', () => {
    it('stores correlation and causation under EventStoreDB’s own $correlationId and $causationId', async () => {
      const id = stream();
      const written = event('Noted');
      await store.appendToStream(id, [written], 'no_stream');
      const raw: unknown[] = [];
      for await (const resolved of client.readStream(id, { direction: FORWARDS, fromRevision: START })) raw.push(resolved.event?.metadata);
      const { correlationId, causationId, ...rest } = written.metadata;
      expect(raw).toEqual([{ ...rest, $correlationId: correlationId, $causationId: causationId, chain: { previousHash: expect.stringMatching(/^0{64}$/), hash: expect.stringMatching(/^[0-9a-f]{64}$/) } }]);
      expect((await store.readStream(id))[0].metadata).toEqual(written.metadata);
    });

    it('gives as its head our newest event even behind more system events than one page used to read (60 $metadata writes)', async () => {
      const id = stream();
      const appended = await store.appendToStream(id, [event('BeforeSystemEvents')], 'no_stream');
      for (let i = 0; i < 60; i += 1) await client.setStreamMetadata(id, { maxAge: 86_400 + i });
      expect(await store.headPosition()).toEqual(appended.position);
    });
  });
} else {
  describe('EventStoreDB event store contract', () => {
    // Skipped, not failed: this machine has no EventStoreDB server; set EVENTSTORE_URL to run the same suite against one.
    it.skip('runs only where EVENTSTORE_URL points at an EventStoreDB server (not set here)', () => undefined);
    it('says why the EventStoreDB half was skipped', () => {
      console.info('EventStoreDB contract skipped: EVENTSTORE_URL is not set (e.g. esdb://localhost:2113?tls=false from docker compose up).');
      expect(url).toBeUndefined();
    });
  });
}
