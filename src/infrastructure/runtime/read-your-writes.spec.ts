import { pino } from 'pino';
import { WriteNotVisibleError } from '../../core/errors.js';
import type { DomainEvent, GlobalPosition } from '../../core/events.js';
import { spendingProjection } from '../../../projections/spending/spending.projection.js';
import { transactionsProjection } from '../../../projections/transactions/transactions.projection.js';
import { tagsProjection } from '../../../projections/tags/tags.projection.js';
import type { CheckpointWatch } from '../projections/checkpoint-watch.js';
import { ReadYourWrites } from './read-your-writes.js';

/** A watch on which no read model ever reaches anything: every wait it is asked for times out. */
function stalledWatch() {
  const waitedFor: string[][] = [];
  const watch = {
    hasReached: () => false,
    parkedWithin: () => null,
    waitFor: async (_position: GlobalPosition, _timeoutMs: number, names: readonly string[]) => {
      waitedFor.push([...names]);
      return false;
    },
  } as unknown as CheckpointWatch;
  return { watch, waitedFor };
}

const position: GlobalPosition = { commit: 10n, prepare: 10n };
const readModels = [transactionsProjection.name, spendingProjection.name, tagsProjection.name];
const projections = [transactionsProjection, spendingProjection, tagsProjection];
const edit = (field: string): DomainEvent => ({ type: 'TransactionEdited', data: { transactionId: 't1', changes: [{ field, oldValue: null, newValue: 'x', locked: true }] } });

describe('read-your-writes', () => {
  it('waits only for the read models the events change', async () => {
    const { watch, waitedFor } = stalledWatch();
    const readYourWrites = new ReadYourWrites(watch, 10, pino({ level: 'silent' }), projections);
    // Notes move no money and are no tag: only the transactions read model has anything to show.
    await expect(readYourWrites.waitFor(position, readModels, [edit('notes')])).rejects.toBeInstanceOf(WriteNotVisibleError);
    expect(waitedFor).toEqual([[transactionsProjection.name]]);
    await expect(readYourWrites.waitFor(position, readModels, [edit('notes'), edit('amount')])).rejects.toBeInstanceOf(WriteNotVisibleError);
    expect(waitedFor.at(-1)).toEqual([transactionsProjection.name, spendingProjection.name]);
  });

  it('returns at once when none of them reads the events, and waits for every one named when it is not told the events', async () => {
    const { watch, waitedFor } = stalledWatch();
    const readYourWrites = new ReadYourWrites(watch, 10, pino({ level: 'silent' }), projections);
    await readYourWrites.waitFor(position, [spendingProjection.name, tagsProjection.name], [edit('notes')]);
    expect(waitedFor).toEqual([]);
    await expect(readYourWrites.waitFor(position, readModels)).rejects.toMatchObject({ reason: 'lagging', readModel: transactionsProjection.name });
    expect(waitedFor).toEqual([readModels]);
  });

  it('waits for a read model it has no definition of, whatever the events', async () => {
    const { watch, waitedFor } = stalledWatch();
    const readYourWrites = new ReadYourWrites(watch, 10, pino({ level: 'silent' }));
    await expect(readYourWrites.waitFor(position, ['elsewhere'], [edit('notes')])).rejects.toBeInstanceOf(WriteNotVisibleError);
    expect(waitedFor).toEqual([['elsewhere']]);
  });
});
