import { specification } from '../../../core/decider-specification.test-support.js';
import { recurringStreamsDecider, sameSnapshot } from './recurring-streams.decider.js';
import type { RecurringStreamSnapshot } from './recurring-streams.js';

const spec = specification(recurringStreamsDecider);

const netflix: RecurringStreamSnapshot = {
  recurringStreamId: '5a0f3c1e-0000-5000-8000-000000000001',
  accountId: '9b1d2c3e-0000-4000-8000-000000000001',
  streamType: 'outflow',
  frequency: 'MONTHLY',
  status: 'MATURE',
  averageAmount: '-15.49',
  lastAmount: '-15.49',
  firstDate: '2026-08-03',
  lastDate: '2026-11-03',
  predictedNextDate: '2026-12-03',
  activeUntil: '2026-12-13',
  transactionIds: ['t1', 't2', 't3', 't4'],
  merchantName: 'Netflix',
  description: 'NETFLIX.COM',
  categoryId: null,
};
const gym: RecurringStreamSnapshot = { ...netflix, recurringStreamId: '5a0f3c1e-0000-5000-8000-000000000002', merchantName: 'Gym', description: 'GYM', transactionIds: ['g1', 'g2'], status: 'EARLY_DETECTION' };

describe('recurring streams decider', () => {
  it('records every stream a first detection finds', () => {
    spec.given([]).when({ type: 'RecordDetection', active: [netflix, gym], overdueIds: [] }).then([
      { type: 'RecurringStreamUpdated', data: netflix },
      { type: 'RecurringStreamUpdated', data: gym },
    ]);
  });

  it('records nothing when a refresh finds what is recorded (a rerun is idempotent)', () => {
    spec.given([{ type: 'RecurringStreamUpdated', data: netflix }]).when({ type: 'RecordDetection', active: [{ ...netflix }], overdueIds: [] }).then([]);
  });

  it('records a stream again only when something about it changed', () => {
    const longer = { ...netflix, lastDate: '2026-12-03', predictedNextDate: '2027-01-03', activeUntil: '2027-01-13', transactionIds: [...netflix.transactionIds, 't5'] };
    spec.given([{ type: 'RecurringStreamUpdated', data: netflix }, { type: 'RecurringStreamUpdated', data: gym }]).when({ type: 'RecordDetection', active: [longer, gym], overdueIds: [] }).then([
      { type: 'RecurringStreamUpdated', data: longer },
    ]);
  });

  it('tombstones a stream found overdue, and one no longer detected at all, once', () => {
    spec.given([{ type: 'RecurringStreamUpdated', data: netflix }, { type: 'RecurringStreamUpdated', data: gym }]).when({ type: 'RecordDetection', active: [], overdueIds: [netflix.recurringStreamId] }).then([
      { type: 'RecurringStreamTombstoned', data: { recurringStreamId: netflix.recurringStreamId, reason: 'overdue' } },
      { type: 'RecurringStreamTombstoned', data: { recurringStreamId: gym.recurringStreamId, reason: 'not-detected' } },
    ]);
    spec.given([{ type: 'RecurringStreamUpdated', data: gym }, { type: 'RecurringStreamTombstoned', data: { recurringStreamId: gym.recurringStreamId, reason: 'not-detected' } }]).when({ type: 'RecordDetection', active: [], overdueIds: [] }).then([]);
  });

  it('revives a tombstoned stream that is active again, under the same id', () => {
    spec.given([{ type: 'RecurringStreamUpdated', data: netflix }, { type: 'RecurringStreamTombstoned', data: { recurringStreamId: netflix.recurringStreamId, reason: 'overdue' } }]).when({ type: 'RecordDetection', active: [netflix], overdueIds: [] }).then([
      { type: 'RecurringStreamUpdated', data: netflix },
    ]);
  });

  it('compares snapshots by value, whatever order their keys were stored in', () => {
    const reordered = Object.fromEntries(Object.entries(netflix).reverse()) as unknown as RecurringStreamSnapshot;
    expect(sameSnapshot(netflix, reordered)).toBe(true);
    expect(sameSnapshot(netflix, { ...netflix, transactionIds: ['t1', 't2', 't3'] })).toBe(false);
    expect(sameSnapshot(netflix, { ...netflix, categoryId: 'c' })).toBe(false);
  });
});
