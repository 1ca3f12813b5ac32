import { eventStoreContract } from './event-store-contract.test-support.js';
import { EventStoreDbEventStore } from './eventstoredb-event-store.js';

const url = process.env.EVENTSTORE_URL;

if (url) {
  let store: EventStoreDbEventStore;
  beforeAll(() => {
    store = new EventStoreDbEventStore(url);
  });
  afterAll(async () => {
    await store.close();
  });
  eventStoreContract('EventStoreDB', () => ({ store }));
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
