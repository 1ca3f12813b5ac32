import { randomBytes } from 'node:crypto';
import { ratesOf, scoreStreams } from '../bench/recurring-accuracy.js';
import { addMonths, formatIsoDate, parseIsoDate } from '../src/core/calendar-day.js';
import type { Clock } from '../src/core/clock.js';
import { refreshRecurringStreams } from '../src/modules/insights/recurring/refresh/recurring-refresh.job.js';
import { OVERDUE_STREAMS_SWEEP_JOB } from '../src/modules/insights/recurring/refresh/overdue-streams-sweep.job.js';
import type { RecurringStream } from '../src/modules/insights/recurring/index.js';
import { recurringStreamsStreamId } from '../src/modules/insights/recurring/recurring-streams.js';
import { createBankLink } from '../src/modules/link/bank-link.wiring.js';
import { linkedAccountIdOf } from '../src/modules/link/link-items/link-item.js';
import type { PersistentSandboxBank } from '../src/modules/link/provider/persistent-sandbox-bank.js';
import { importedTransactionIdOf } from '../src/modules/link/sync/provider-transaction.mapping.js';
import { startTestApp, type TestApp } from './support/test-app.js';

/**
 * GET /recurring against what the data says, not what the code does: a linked sandbox item's
 * planted streams (the provider's own ground truth) and streams made by hand from manual
 * transactions, through the debounced refresh job, a clock moved past a stream's grace, deletions
 * and another user.
 */
interface ServedStream {
  id: string;
  accountId: string;
  accountName: string;
  averageAmount: number;
  lastAmount: number;
  category: { id: string; systemKey: string | null; name: string } | null;
  description: string;
  firstDate: string;
  lastDate: string;
  frequency: RecurringStream['frequency'];
  status: RecurringStream['status'];
  isActive: boolean;
  institutionName: string | null;
  merchantName: string | null;
  predictedNextDate: string | null;
  streamId: string | null;
  streamType: 'inflow' | 'outflow';
  transactionIds: string[];
}

let offsetMs = 0;
const clock: Clock = { now: () => new Date(Date.now() + offsetMs) };
let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ clock, env: { LINK_TOKEN_KEY: randomBytes(32).toString('base64'), RECURRING_REFRESH_DEBOUNCE_MS: '300' } });
}, 180_000);
afterAll(() => t.close(), 180_000);

async function streamsOf(key: string): Promise<ServedStream[]> {
  return ((await t.as(key).get('/v1/recurring').expect(200)).body as { streams: ServedStream[] }).streams;
}

/** The engine's shape of a served stream, for the benchmark's scoring. */
function asDetected(stream: ServedStream): RecurringStream {
  return { ...stream, averageAmount: String(stream.averageAmount), lastAmount: String(stream.lastAmount), category: stream.category?.systemKey ?? null };
}

async function recordedEvents(userId: string): Promise<Array<{ type: string; data: unknown }>> {
  return (await t.runtime.eventStore.readStream(recurringStreamsStreamId(userId))).map(({ type, data }) => ({ type, data }));
}

const today = () => formatIsoDate(parseIsoDate(clock.now().toISOString().slice(0, 10)));

describe('GET /recurring', () => {
  it("serves a linked sandbox item's planted streams with their cadence once the sync and the refresh ran", async () => {
    const { key, userId } = await t.newUser();
    const { publicToken } = (await t.as(key).post('/v1/sandbox/public-token', { institutionId: 'ins_100003' }).expect(200)).body as { publicToken: string };
    const item = (await t.as(key).post('/v1/link/items', { publicToken }).expect(201)).body as { linkItemId: string };
    await t.settle();

    const bankLink = await createBankLink(t.runtime.config, t.runtime.database.db, t.runtime.clock);
    const history = await (bankLink.sandbox as PersistentSandboxBank).itemHistory(item.linkItemId);
    const planted = history.plantedStreams.map((stream) => ({
      ...stream,
      accountId: linkedAccountIdOf(userId, item.linkItemId, stream.accountId),
      transactionIds: stream.transactionIds.map((id) => importedTransactionIdOf(userId, item.linkItemId, id)),
    }));
    const served = await streamsOf(key);
    const { counts } = scoreStreams(planted, served.map(asDetected));
    const rates = ratesOf(counts);
    console.log(
      `recurring on a linked sandbox item: ${served.length} streams served, ${counts.plantedActive} planted active; precision ${rates.precision.toFixed(3)} ` +
        `(${counts.matchedDetected}/${counts.detectedActive}), recall ${rates.recall.toFixed(3)} (${counts.matchedPlanted}/${counts.plantedActive}), ` +
        `frequency ${rates.frequencyAccuracy.toFixed(3)}, next date ±3 days ${rates.nextDateAccuracy.toFixed(3)}`,
    );
    expect(counts.plantedActive).toBeGreaterThanOrEqual(5);
    // The engine's floor is 0.95 over six histories (bench/recurring-accuracy.spec.ts); one item has fewer streams, so one miss costs more.
    expect(rates.precision).toBeGreaterThanOrEqual(0.9);
    expect(rates.recall).toBeGreaterThanOrEqual(0.9);
    expect(rates.frequencyAccuracy).toBeGreaterThanOrEqual(0.9);

    const institution = history.institution.name;
    for (const stream of served) {
      expect(stream).toMatchObject({ isActive: true, streamId: stream.id, institutionName: institution });
      expect(['MATURE', 'EARLY_DETECTION']).toContain(stream.status);
      expect(stream.predictedNextDate).toEqual(expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/));
    }
    // A rerun on the same data appends nothing and keeps every id.
    const before = await recordedEvents(userId);
    const rerun = await refreshRecurringStreams(t.runtime, userId);
    expect(rerun.eventsAppended).toBe(0);
    expect((await recordedEvents(userId)).length).toBe(before.length);
    expect((await streamsOf(key)).map((stream) => stream.id).sort()).toEqual(served.map((stream) => stream.id).sort());
  }, 180_000);

  it('shows a monthly stream made by hand after the debounce, tombstones it when it stops or loses its transactions, and keeps its id', async () => {
    const { key, userId } = await t.newUser();
    const stranger = await t.newUser();
    const me = t.as(key);
    const checking = (await me.post('/v1/accounts', { name: 'Checking', type: 'bank', subtype: 'checking', currentBalance: 1000 }).expect(201)).body.id as string;
    const categories = (await me.get('/v1/categories').expect(200)).body as { categories: Array<{ id: string; systemKey: string | null }> };
    const gymCategory = categories.categories.find((category) => category.systemKey === 'PERSONAL_CARE_GYMS_AND_FITNESS_CENTERS') ?? categories.categories[0];
    // Monthly, the last one five days ago: the next is due in about 25 days.
    const last = parseIsoDate(today()) - 5;
    const dates = [3, 2, 1, 0].map((back) => formatIsoDate(addMonths(last, -back)));
    const ids: string[] = [];
    for (const date of dates) ids.push((await me.post('/v1/transactions', { accountId: checking, amount: -42.5, date, name: 'IRONWORKS GYM', categoryId: gymCategory.id }).expect(201)).body.id);
    await t.settle();

    const [gym, ...others] = await streamsOf(key);
    expect(others).toEqual([]);
    expect(gym).toMatchObject({
      accountId: checking,
      accountName: 'Checking',
      accountType: 'bank',
      accountSubtype: 'checking',
      averageAmount: -42.5,
      lastAmount: -42.5,
      category: { id: gymCategory.id },
      description: 'IRONWORKS GYM',
      firstDate: dates[0],
      lastDate: dates[3],
      frequency: 'MONTHLY',
      status: 'MATURE',
      isActive: true,
      institutionName: null,
      streamType: 'outflow',
      transactionIds: ids,
      predictedNextDate: formatIsoDate(addMonths(parseIsoDate(dates[3]), 1)),
    });
    // Another user's streams never show.
    expect(await streamsOf(stranger.key)).toEqual([]);

    // Deleting one leaves three: the same stream, same id.
    await me.delete(`/v1/transactions/${ids[0]}`).expect(200);
    await t.settle();
    expect((await streamsOf(key)).map((stream) => [stream.id, stream.transactionIds])).toEqual([[gym.id, ids.slice(1)]]);

    // Past its next date and grace, the stream leaves the list at once, and the daily sweep records it TOMBSTONED.
    offsetMs = (parseIsoDate(gym.predictedNextDate!) + 40 - parseIsoDate(today())) * 86_400_000;
    try {
      expect(await streamsOf(key)).toEqual([]);
      await t.runtime.jobs.enqueue(OVERDUE_STREAMS_SWEEP_JOB, {}, { jobId: `sweep-${Date.now()}` });
      await t.settle();
      expect((await recordedEvents(userId)).at(-1)).toMatchObject({ type: 'RecurringStreamTombstoned', data: { recurringStreamId: gym.id, reason: 'overdue' } });
      const row = await t.runtime.database.db.selectFrom('recurring_streams').select(['status', 'predicted_next_date']).where('id', '=', gym.id).executeTakeFirstOrThrow();
      expect(row).toEqual({ status: 'TOMBSTONED', predicted_next_date: null });
    } finally {
      offsetMs = 0;
    }

    // Back to today, a refresh revives it under the same id; deleting two of its transactions ends it (not detected).
    expect((await refreshRecurringStreams(t.runtime, userId)).eventsAppended).toBe(1);
    await t.settle();
    expect((await streamsOf(key)).map((stream) => stream.id)).toEqual([gym.id]);
    await me.delete(`/v1/transactions/${ids[1]}`).expect(200);
    await me.delete(`/v1/transactions/${ids[2]}`).expect(200);
    await t.settle();
    expect(await streamsOf(key)).toEqual([]);
    expect((await recordedEvents(userId)).at(-1)).toMatchObject({ type: 'RecurringStreamTombstoned', data: { recurringStreamId: gym.id, reason: 'not-detected' } });
  }, 120_000);

  it("drops a deleted account's streams from the list at once", async () => {
    const { key } = await t.newUser();
    const me = t.as(key);
    const savings = (await me.post('/v1/accounts', { name: 'Savings', type: 'bank', subtype: 'savings', currentBalance: 0 }).expect(201)).body.id as string;
    const last = parseIsoDate(today()) - 3;
    for (const back of [2, 1, 0]) await me.post('/v1/transactions', { accountId: savings, amount: 250, date: formatIsoDate(addMonths(last, -back)), name: 'ACME PAYROLL' }).expect(201);
    await t.settle();
    expect((await streamsOf(key)).map((stream) => [stream.streamType, stream.frequency])).toEqual([['inflow', 'MONTHLY']]);
    await me.delete(`/v1/accounts/${savings}`).expect(200);
    expect(await streamsOf(key)).toEqual([]);
  }, 120_000);
});
