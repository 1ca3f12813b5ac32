import { startTestApp, type TestApp } from './support/test-app.js';

let t: TestApp;
let key: string;
let accountId: string;

beforeAll(async () => {
  t = await startTestApp();
  ({ key, accountId } = await t.newUserWithAccount());
});
afterAll(() => t.close());

interface Entry {
  id: string;
  kind: string;
  field: string;
  oldValue?: unknown;
  newValue?: unknown;
  actor: string;
  createdAt: string;
  requestId: string;
  correlationId: string;
}

const activity = async (id: string) => (await t.as(key).get(`/v1/transactions/${id}/activity`).expect(200)).body.events as Entry[];
const values = (entries: Entry[]) => entries.map((entry) => [entry.kind, entry.field, 'oldValue' in entry ? entry.oldValue : '-', 'newValue' in entry ? entry.newValue : '-']);

describe('the activity log', () => {
  it('opens with a created entry per field that has a value, and closes with a deleted entry per field that had one', async () => {
    const tag = (await t.as(key).post('/v1/tags', { name: 'Travel', color: 'blue' }).expect(201)).body as { id: string };
    const created = (
      await t.as(key).post('/v1/transactions', { accountId, amount: -12.5, date: '2026-11-20', name: 'Corner Cafe', notes: 'with Sam', location: { city: 'Lisbon' }, tagIds: [tag.id] }).set('X-Request-Id', 'create-1').expect(201)
    ).body as { id: string };
    await t.as(key).patch(`/v1/transactions/${created.id}`, { amount: -13, notes: null, merchantName: 'Cafe Ltd' }).set('X-Request-Id', 'edit-1').set('X-Correlation-Id', 'session-42').expect(200);
    await t.as(key).patch(`/v1/transactions/${created.id}`, { notes: null }).expect(200);
    await t.as(key).delete(`/v1/transactions/${created.id}`).set('X-Request-Id', 'delete-1').expect(200);

    const entries = await activity(created.id);
    const location = { address: null, city: 'Lisbon', country: null, postal_code: null, region: null, store_number: null, lat: null, lon: null };
    expect(values(entries)).toEqual([
      ['created', 'name', '-', 'Corner Cafe'],
      ['created', 'amount', '-', -12.5],
      ['created', 'date', '-', '2026-11-20'],
      ['created', 'notes', '-', 'with Sam'],
      ['created', 'location', '-', location],
      ['created', 'tags', '-', [tag.id]],
      ['edited', 'merchantName', null, 'Cafe Ltd'],
      ['edited', 'amount', -12.5, -13],
      // notes: null restores the value at creation, which it already had: no entry.
      ['deleted', 'name', 'Corner Cafe', '-'],
      ['deleted', 'merchantName', 'Cafe Ltd', '-'],
      ['deleted', 'amount', -13, '-'],
      ['deleted', 'date', '2026-11-20', '-'],
      ['deleted', 'notes', 'with Sam', '-'],
      ['deleted', 'location', location, '-'],
      ['deleted', 'tags', [tag.id], '-'],
    ]);
    expect(entries.map((entry) => [entry.kind, entry.requestId, entry.correlationId, entry.actor])).toEqual([
      ...Array.from({ length: 6 }, () => ['created', 'create-1', 'create-1', 'user']),
      ...Array.from({ length: 2 }, () => ['edited', 'edit-1', 'session-42', 'user']),
      ...Array.from({ length: 7 }, () => ['deleted', 'delete-1', 'delete-1', 'user']),
    ]);
    // Deleted: gone from the list, its history still readable.
    await t.as(key).get(`/v1/transactions/${created.id}`).expect(404);
  });

  it('leaves out fields without a value at creation and an emptied tag set at deletion', async () => {
    const created = (await t.as(key).post('/v1/transactions', { accountId, amount: 4, date: '2026-11-21', name: 'Refund' }).expect(201)).body as { id: string };
    await t.as(key).patch(`/v1/transactions/${created.id}`, { notes: 'late', tagIds: [] }).expect(200);
    await t.as(key).patch(`/v1/transactions/${created.id}`, { notes: 'later' }).expect(200);
    await t.as(key).delete(`/v1/transactions/${created.id}`).expect(200);
    expect(values(await activity(created.id))).toEqual([
      ['created', 'name', '-', 'Refund'],
      ['created', 'amount', '-', 4],
      ['created', 'date', '-', '2026-11-21'],
      ['edited', 'notes', null, 'late'],
      ['edited', 'notes', 'late', 'later'],
      ['deleted', 'name', 'Refund', '-'],
      ['deleted', 'amount', 4, '-'],
      ['deleted', 'date', '2026-11-21', '-'],
      ['deleted', 'notes', 'later', '-'],
    ]);
  });

  it('is a 404 for a transaction that is not the caller\'s', async () => {
    const created = (await t.as(key).post('/v1/transactions', { accountId, amount: 1, date: '2026-11-21', name: 'Mine' }).expect(201)).body as { id: string };
    const other = await t.newUser();
    await t.as(other.key).get(`/v1/transactions/${created.id}/activity`).expect(404);
    await t.as(key).get('/v1/transactions/00000000-0000-4000-8000-000000000000/activity').expect(404);
  });
});
