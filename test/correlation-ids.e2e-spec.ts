import { sql } from 'kysely';
import { linkItemStreamId, linkItemUuidOf } from '../src/modules/link/link-items/link-item.js';
import { recurringStreamsStreamId } from '../src/modules/insights/recurring/recurring-streams.js';
import { tagStreamId } from '../src/modules/tags/tag.js';
import { transactionStreamId } from '../src/modules/transactions/transaction.js';
import { startTestApp, type TestApp } from './support/test-app.js';

let t: TestApp;
let key: string;
let userId: string;
let accountId: string;

beforeAll(async () => {
  t = await startTestApp({ env: { RECURRING_REFRESH_DEBOUNCE_MS: '0' } });
  ({ key, userId, accountId } = await t.newUserWithAccount());
});
afterAll(() => t.close());

const newTransaction = async (overrides: Record<string, unknown> = {}) =>
  (await t.as(key).post('/v1/transactions', { accountId, amount: -9, date: '2026-11-20', name: 'Bakery', ...overrides }).expect(201)).body as { id: string };
const streamOf = (streamId: string) => t.runtime.eventStore.readStream(streamId);

describe('request, correlation and causation ids in event metadata', () => {
  it('records the client X-Correlation-Id on the events a request appends, caused by the request, and echoes it', async () => {
    const created = await newTransaction();
    const response = await t.as(key).patch(`/v1/transactions/${created.id}`, { notes: 'traced' }).set('X-Request-Id', 'req-patch-1').set('X-Correlation-Id', 'checkout-flow-7').expect(200);
    expect(response.headers['x-request-id']).toBe('req-patch-1');
    expect(response.headers['x-correlation-id']).toBe('checkout-flow-7');
    const edited = (await streamOf(transactionStreamId(created.id))).find((event) => event.type === 'TransactionEdited');
    expect(edited?.metadata).toMatchObject({ userId, actor: 'user', requestId: 'req-patch-1', correlationId: 'checkout-flow-7', causationId: 'req-patch-1' });
  });

  it('starts a correlation of its own (the request id) without the header or with one it cannot trust', async () => {
    const created = await newTransaction();
    for (const offered of [undefined, 'has spaces in it', 'x'.repeat(129)]) {
      const request = t.as(key).patch(`/v1/transactions/${created.id}`, { notes: `offered ${offered?.length ?? 0}` });
      const response = await (offered === undefined ? request : request.set('X-Correlation-Id', offered)).expect(200);
      const requestId = response.headers['x-request-id'] as string;
      expect(response.headers['x-correlation-id']).toBe(requestId);
      const last = (await streamOf(transactionStreamId(created.id))).at(-1);
      expect(last?.metadata).toMatchObject({ requestId, correlationId: requestId, causationId: requestId });
    }
  });

  it("gives a tag deletion's fan-out the deletion's correlation id, caused by the TagDeleted event", async () => {
    const tag = (await t.as(key).post('/v1/tags', { name: 'Doomed', color: 'red' }).expect(201)).body as { id: string };
    const tagged = await Promise.all([newTransaction({ tagIds: [tag.id] }), newTransaction({ tagIds: [tag.id] })]);
    await t.as(key).delete(`/v1/tags/${tag.id}`).set('X-Request-Id', 'req-delete-tag').set('X-Correlation-Id', 'cleanup-3').expect(204);
    await t.settle();
    const deleted = (await streamOf(tagStreamId(tag.id))).find((event) => event.type === 'TagDeleted');
    expect(deleted?.metadata).toMatchObject({ actor: 'user', requestId: 'req-delete-tag', correlationId: 'cleanup-3', causationId: 'req-delete-tag' });
    for (const transaction of tagged) {
      const removed = (await streamOf(transactionStreamId(transaction.id))).filter((event) => event.type === 'TagRemoved');
      expect(removed.map((event) => event.metadata)).toEqual([expect.objectContaining({ actor: 'system', requestId: 'req-delete-tag', correlationId: 'cleanup-3', causationId: deleted?.id })]);
    }
  });

  it("carries a link request's correlation into the sync it queues and the recurring refresh after it", async () => {
    // A user of its own: every refresh of theirs is the sync's.
    const { key, userId } = await t.newUser();
    const { publicToken } = (await t.as(key).post('/v1/sandbox/public-token', { institutionId: 'ins_100002' }).expect(200)).body as { publicToken: string };
    const linked = await t.as(key).post('/v1/link/items', { publicToken }).set('X-Request-Id', 'req-link').set('X-Correlation-Id', 'onboarding-9').expect(201);
    const { linkItemId } = linked.body as { linkItemId: string };
    await t.settle();
    const itemEvents = await streamOf(linkItemStreamId(linkItemUuidOf(userId, linkItemId)));
    const linkedEvent = itemEvents.find((event) => event.type === 'LinkItemLinked');
    expect(linkedEvent?.metadata).toMatchObject({ actor: 'user', correlationId: 'onboarding-9', causationId: 'req-link' });
    const pages = itemEvents.filter((event) => event.type === 'LinkItemSyncPageImported');
    expect(pages.length).toBeGreaterThan(0);
    // The sync is a reaction to the item's event (decision 0038): that event is its cause.
    for (const page of pages) expect(page.metadata).toMatchObject({ actor: 'system', correlationId: 'onboarding-9', causationId: linkedEvent?.id });
    const refreshed = await streamOf(recurringStreamsStreamId(userId));
    console.log(`link → sync: ${pages.length} page events; recurring refresh: ${refreshed.length} events, correlations ${[...new Set(refreshed.map((event) => event.metadata.correlationId))].join(', ')}`);
    expect(refreshed.length).toBeGreaterThan(0);
    // Caused by an event of the onboarding (a reaction's job names the event that asked for it), never by the request.
    const onboarding = await sql<{ id: string }>`SELECT event_id::text AS id FROM events WHERE metadata->>'correlationId' = 'onboarding-9'`.execute(t.runtime.database.db);
    const onboardingIds = onboarding.rows.map((row) => row.id);
    for (const event of refreshed) {
      expect(event.metadata).toMatchObject({ actor: 'system', correlationId: 'onboarding-9' });
      expect(onboardingIds).toContain(event.metadata.causationId);
    }
  }, 120_000);
});
