import { foldEvents } from '../src/core/decider.js';
import type { RecordedEvent } from '../src/core/events.js';
import { canonicalEventJson, chainHash, GENESIS_HASH } from '../src/infrastructure/event-store/event-chain.js';
import type { ExportLine } from '../src/infrastructure/event-store/event-log.port.js';
import { LOCKED_FIELD_OF, type TransactionEvent, transactionStreamId } from '../src/modules/transactions/transaction.js';
import { transactionDecider } from '../src/modules/transactions/transaction.decider.js';
import { startTestApp, type TestApp } from './support/test-app.js';

/** The service's clock, moved by the test: each write lands at a known instant. */
let now = new Date('2026-11-20T12:00:00.000Z');
const at = (iso: string) => {
  now = new Date(iso);
};

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ clock: { now: () => now } });
});
afterAll(() => t.close());

/** The export's lines, parsed. */
async function exportOf(key: string): Promise<ExportLine[]> {
  const response = await t.as(key).get('/v1/export').expect(200);
  expect(response.headers['content-type']).toBe('application/x-ndjson; charset=utf-8');
  return response.text
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line) as ExportLine);
}

describe('as-of reads', () => {
  let key: string;
  let accountId: string;
  let transactionId: string;
  beforeAll(async () => {
    at('2026-11-20T12:00:00.000Z');
    ({ key, accountId } = await t.newUserWithAccount());
    at('2026-11-20T13:00:00.000Z');
    transactionId = (await t.as(key).post('/v1/transactions', { accountId, amount: -12.5, date: '2026-11-19', name: 'Corner Cafe', notes: 'lunch' }).expect(201)).body.id;
    at('2026-11-21T09:00:00.000Z');
    await t.as(key).patch(`/v1/transactions/${transactionId}`, { amount: -13, name: 'Cafe' }).expect(200);
    at('2026-11-22T09:00:00.000Z');
    await t.as(key).patch(`/v1/accounts/${accountId}/balance`, { current: 1500 }).expect(200);
    at('2026-11-23T09:00:00.000Z');
  });

  it('shows a transaction as it stood before an edit and after it, with the ETag of that revision, in the shape of GET /transactions/{id}', async () => {
    const live = await t.as(key).get(`/v1/transactions/${transactionId}`).expect(200);
    const before = await t.as(key).get(`/v1/transactions/${transactionId}?asOf=2026-11-20T18:00:00Z`).expect(200);
    expect(before.body).toEqual({ ...live.body, amount: -12.5, name: 'Corner Cafe', lockedFields: [] });
    expect(before.headers.etag).toBe('"0"');
    const after = await t.as(key).get(`/v1/transactions/${transactionId}?asOf=2026-11-21T09:00:00.000%2B00:00`).expect(200);
    expect(after.body).toEqual(live.body);
    expect(after.headers.etag).toBe(live.headers.etag);
    // The edit at 09:00:00.000 is part of 09:00 and not of the millisecond before.
    expect((await t.as(key).get(`/v1/transactions/${transactionId}?asOf=2026-11-21T08:59:59.999Z`).expect(200)).body.amount).toBe(-12.5);
  });

  it('shows the splits a transaction had then, their categories named', async () => {
    at('2026-11-23T09:10:00.000Z');
    const { categories } = (await t.as(key).get('/v1/categories').expect(200)).body as { categories: Array<{ id: string; name: string }> };
    const shop = (await t.as(key).post('/v1/transactions', { accountId, amount: -100, date: '2026-11-23', name: 'Market' }).expect(201)).body.id;
    at('2026-11-23T09:20:00.000Z');
    const split = (await t.as(key).put(`/v1/transactions/${shop}/splits`, { splits: [{ amount: -60, categoryId: categories[1].id, notes: 'towels' }, { amount: -40 }] }).expect(200)).body;
    at('2026-11-23T09:30:00.000Z');
    expect((await t.as(key).get(`/v1/transactions/${shop}?asOf=2026-11-23T09:15:00Z`).expect(200)).body.splits).toEqual([]);
    expect((await t.as(key).get(`/v1/transactions/${shop}?asOf=2026-11-23T09:25:00Z`).expect(200)).body.splits).toEqual(split.splits);
    expect(split.splits[0].category).toMatchObject({ id: categories[1].id, name: categories[1].name });
    at('2026-11-23T09:00:00.000Z');
  });

  it('answers 404 before the transaction existed, and for another user’s transaction at any instant', async () => {
    expect((await t.as(key).get(`/v1/transactions/${transactionId}?asOf=2026-11-20T12:59:59Z`).expect(404)).body).toEqual({ code: 'NOT_FOUND', error: 'Transaction not found' });
    const other = await t.newUser();
    await t.as(other.key).get(`/v1/transactions/${transactionId}?asOf=2026-11-22T00:00:00Z`).expect(404);
    await t.as(other.key).get(`/v1/accounts/${accountId}?asOf=2026-11-22T00:00:00Z`).expect(404);
  });

  it('refuses an instant in the future (422 too_big at asOf) and one that is not a timestamp (422 invalid_string at asOf)', async () => {
    const future = await t.as(key).get(`/v1/transactions/${transactionId}?asOf=2026-11-23T09:00:00.001Z`).expect(422);
    expect(future.body).toEqual({ success: false, error: { name: 'ValidationError', issues: [{ code: 'too_big', message: expect.stringContaining('future'), path: ['asOf'] }] } });
    await t.as(key).get(`/v1/transactions/${transactionId}?asOf=2026-11-23T09:00:00.000Z`).expect(200);
    for (const asOf of ['yesterday', '2026-11-20', '2026-11-20T12:00:00', '2026-02-30T00:00:00Z', '']) {
      const response = await t.as(key).get(`/v1/accounts/${accountId}?asOf=${encodeURIComponent(asOf)}`).expect(422);
      expect([asOf, response.body.error.issues]).toEqual([asOf, [{ code: 'invalid_string', message: expect.any(String), path: ['asOf'] }]]);
    }
    const twice = await t.as(key).get(`/v1/accounts/${accountId}?asOf=2026-11-20T12:00:00Z&asOf=2026-11-21T12:00:00Z`).expect(422);
    expect(twice.body.error.issues[0].path).toEqual(['asOf']);
  });

  it('shows an account’s balance and fields as they stood, and 404 before it was created', async () => {
    const live = (await t.as(key).get(`/v1/accounts/${accountId}`).expect(200)).body;
    expect(live.current).toBe(1500);
    const before = await t.as(key).get(`/v1/accounts/${accountId}?asOf=2026-11-21T00:00:00Z`).expect(200);
    expect(before.body).toEqual({ ...live, current: 1000, available: 1000, updatedAt: '2026-11-20T12:00:00.000Z' });
    expect((await t.as(key).get(`/v1/accounts/${accountId}?asOf=2026-11-22T10:00:00Z`).expect(200)).body).toEqual(live);
    await t.as(key).get(`/v1/accounts/${accountId}?asOf=2026-11-20T11:59:59.999Z`).expect(404);
  });

  it('shows what was deleted as it stood before its deletion, and 404 after', async () => {
    at('2026-11-23T10:00:00.000Z');
    const gone = (await t.as(key).post('/v1/transactions', { accountId, amount: -3, date: '2026-11-23', name: 'Bus' }).expect(201)).body.id;
    at('2026-11-23T11:00:00.000Z');
    await t.as(key).delete(`/v1/transactions/${gone}`).expect(200);
    await t.as(key).get(`/v1/transactions/${gone}`).expect(404);
    expect((await t.as(key).get(`/v1/transactions/${gone}?asOf=2026-11-23T10:30:00Z`).expect(200)).body).toMatchObject({ id: gone, name: 'Bus', amount: -3 });
    await t.as(key).get(`/v1/transactions/${gone}?asOf=2026-11-23T11:00:00Z`).expect(404);
    // An account deleted later: its transactions and itself, as they stood before.
    at('2026-11-23T12:00:00.000Z');
    const closing = (await t.as(key).post('/v1/accounts', { name: 'Old savings', type: 'bank', subtype: 'savings', currentBalance: 10 }).expect(201)).body.id;
    const kept = (await t.as(key).post('/v1/transactions', { accountId: closing, amount: 5, date: '2026-11-23', name: 'Interest' }).expect(201)).body.id;
    at('2026-11-23T13:00:00.000Z');
    await t.as(key).delete(`/v1/accounts/${closing}`).expect(200);
    expect((await t.as(key).get(`/v1/accounts/${closing}?asOf=2026-11-23T12:30:00Z`).expect(200)).body).toMatchObject({ id: closing, name: 'Old savings', current: 10 });
    expect((await t.as(key).get(`/v1/transactions/${kept}?asOf=2026-11-23T12:30:00Z`).expect(200)).body).toMatchObject({ id: kept, accountName: 'Old savings' });
    await t.as(key).get(`/v1/accounts/${closing}?asOf=2026-11-23T13:00:00Z`).expect(404);
    await t.as(key).get(`/v1/transactions/${kept}?asOf=2026-11-23T13:00:00Z`).expect(404);
  });
});

describe('GET /v1/export', () => {
  it('streams every event of the user’s streams, in order, as JSON lines whose hash chains check out — and none of anyone else’s', async () => {
    at('2026-11-24T09:00:00.000Z');
    const { key, userId, accountId } = await t.newUserWithAccount();
    const other = await t.newUserWithAccount();
    const tag = (await t.as(key).post('/v1/tags', { name: 'Work', color: 'green' }).expect(201)).body.id;
    const id = (await t.as(key).post('/v1/transactions', { accountId, amount: -20, date: '2026-11-24', name: 'Taxi' }).expect(201)).body.id;
    await t.as(key).put(`/v1/transactions/${id}/tags`, { tagIds: [tag] }).expect(200);
    await t.as(other.key).post('/v1/transactions', { accountId: other.accountId, amount: -1, date: '2026-11-24', name: 'Not yours' }).expect(201);
    const lines = await exportOf(key);
    expect(lines.length).toBeGreaterThanOrEqual(5);
    expect(new Set(lines.map((line) => line.metadata && (line.metadata as { userId: string }).userId))).toEqual(new Set([userId]));
    expect(JSON.stringify(lines)).not.toContain(other.accountId);
    expect(lines.map((line) => line.stream)).toEqual(expect.arrayContaining([`account-${accountId}`, `tag-${tag}`, transactionStreamId(id)]));
    const positions = lines.map((line) => line.position.split('/').map(BigInt));
    for (let index = 1; index < positions.length; index += 1) expect(positions[index][0] > positions[index - 1][0] || (positions[index][0] === positions[index - 1][0] && positions[index][1] > positions[index - 1][1])).toBe(true);
    // Checked from the file alone: each stream's lines chain from 64 zeros.
    const links = new Map<string, Buffer>();
    for (const line of lines) {
      const previous = links.get(line.stream) ?? GENESIS_HASH;
      expect(line.previousHash).toBe(previous.toString('hex'));
      const hash = chainHash(previous, canonicalEventJson({ id: line.id, streamId: line.stream, revision: BigInt(line.revision), type: line.type, data: line.data, metadata: line.metadata as RecordedEvent['metadata'] }));
      expect(line.hash).toBe(hash.toString('hex'));
      links.set(line.stream, hash);
    }
  });

  it('gives, re-read and folded, the same transactions the API lists', async () => {
    at('2026-11-25T09:00:00.000Z');
    const { key, accountId } = await t.newUserWithAccount();
    const { categories } = (await t.as(key).get('/v1/categories').expect(200)).body as { categories: Array<{ id: string }> };
    const ids: string[] = [];
    for (let index = 0; index < 6; index += 1) {
      ids.push((await t.as(key).post('/v1/transactions', { accountId, amount: -(index + 1.25), date: `2026-11-0${index + 1}`, name: `Shop ${index}`, location: { city: 'Lisbon' } }).expect(201)).body.id);
    }
    await t.as(key).patch(`/v1/transactions/${ids[0]}`, { categoryId: categories[2].id, notes: 'kept' }).expect(200);
    await t.as(key).patch(`/v1/transactions/${ids[1]}`, { amount: -99.5 }).expect(200);
    await t.as(key).patch(`/v1/transactions/${ids[1]}`, { amount: null }).expect(200);
    await t.as(key).delete(`/v1/transactions/${ids[2]}`).expect(200);
    const listed = (await t.as(key).get('/v1/transactions?limit=500').expect(200)).body.transactions as Array<Record<string, unknown>>;

    const streams = new Map<string, TransactionEvent[]>();
    for (const line of await exportOf(key)) {
      if (!line.stream.startsWith('transaction-')) continue;
      streams.set(line.stream, [...(streams.get(line.stream) ?? []), { type: line.type, data: line.data } as TransactionEvent]);
    }
    const folded = [...streams.values()]
      .map((events) => foldEvents(transactionDecider, events))
      .filter((state) => state.status === 'live' && state.current)
      .map((state) => {
        const current = state.current!;
        return {
          accountId: state.accountId,
          amount: Number(current.amount),
          date: current.date,
          name: current.name,
          merchantName: current.merchantName,
          notes: current.notes,
          location: current.location,
          categoryId: current.categoryId,
          tagIds: current.tagIds,
          lockedFields: [...state.locked].map((field) => LOCKED_FIELD_OF[field]).sort(),
        };
      });
    const shown = listed.map((transaction) => ({
      accountId: transaction.accountId,
      amount: transaction.amount,
      date: transaction.date,
      name: transaction.name,
      merchantName: transaction.merchantName,
      notes: transaction.notes,
      location: transaction.location,
      categoryId: (transaction.category as { id: string } | null)?.id ?? null,
      tagIds: transaction.tagIds,
      lockedFields: transaction.lockedFields,
    }));
    const byDate = (a: { date: unknown }, b: { date: unknown }) => String(a.date).localeCompare(String(b.date));
    expect(folded.sort(byDate)).toEqual(shown.sort(byDate));
    expect(folded).toHaveLength(5);
  });
});
