import { formatIsoDate, parseIsoDate } from '../../../../core/calendar-day.js';
import { listRecurringStreams } from '../detect-recurring-streams.js';
import { addTransactions, EMPTY_RECURRING_INDEX } from '../recurring-index.state.js';
import { everyNDays, monthlyOn, series } from '../recurring-history.test-support.js';
import { detectionToRecord, mostCommonCategory } from './detection-snapshots.js';

const history = [
  ...series({ idPrefix: 'gym', dates: monthlyOn('2026-06-05', 5, 5), amounts: '-40', name: 'IRONWORKS GYM' }),
  ...series({ idPrefix: 'pay', dates: everyNDays('2026-07-03', 14, 10), amounts: '2100', name: 'ACME PAYROLL' }),
];
const index = addTransactions(EMPTY_RECURRING_INDEX, history);
const categories = new Map([['gym-001', 'cat-a'], ['gym-002', 'cat-b'], ['gym-003', 'cat-b'], ['gym-004', 'cat-a'], ['gym-005', null]]);
const categoryIdOf = (id: string) => categories.get(id) ?? null;

describe('recording a detection', () => {
  it('records what the engine lists, field for field, with the day each stream stays active until', () => {
    const asOf = '2026-11-10';
    const command = detectionToRecord(index, asOf, categoryIdOf);
    const listed = listRecurringStreams(index, { asOf });
    expect(command.overdueIds).toEqual([]);
    expect(command.active.map((snapshot) => snapshot.recurringStreamId)).toEqual(listed.map((stream) => stream.id));
    for (const [snapshot, stream] of command.active.map((snapshot, position) => [snapshot, listed[position]] as const)) {
      expect(snapshot).toMatchObject({ accountId: stream.accountId, frequency: stream.frequency, status: stream.status, averageAmount: stream.averageAmount, transactionIds: stream.transactionIds, predictedNextDate: stream.predictedNextDate });
      expect(snapshot.activeUntil >= (stream.predictedNextDate as string)).toBe(true);
    }
  });

  it("stops a stream exactly when the engine does: active on its activeUntil, overdue the day after", () => {
    for (const snapshot of detectionToRecord(index, '2026-11-10', categoryIdOf).active) {
      const lastActiveDay = snapshot.activeUntil;
      const dayAfter = formatIsoDate(parseIsoDate(lastActiveDay) + 1);
      expect(detectionToRecord(index, lastActiveDay, categoryIdOf).active.map((active) => active.recurringStreamId)).toContain(snapshot.recurringStreamId);
      const after = detectionToRecord(index, dayAfter, categoryIdOf);
      expect([after.active.some((active) => active.recurringStreamId === snapshot.recurringStreamId), after.overdueIds.includes(snapshot.recurringStreamId)]).toEqual([false, true]);
    }
  });

  it("takes the category most of a stream's transactions carry, the most recent on a tie", () => {
    const gym = detectionToRecord(index, '2026-11-10', categoryIdOf).active.find((snapshot) => snapshot.description === 'IRONWORKS GYM');
    expect(gym?.categoryId).toBe('cat-a');
    expect(mostCommonCategory(['x', 'y', 'y', null])).toBe('y');
    expect(mostCommonCategory([null, null])).toBeNull();
  });
});
