import { type GlobalPosition } from '../../core/events.js';
import type { ProjectionVersionStatus, VersionState } from '../projections/projection-status.js';
import { projectionReadings } from './projection-readings.js';

const at = (commit: number, prepare: number): GlobalPosition => ({ commit: BigInt(commit), prepare: BigInt(prepare) });

function row(name: string, version: number, state: VersionState, position: GlobalPosition, parked = 0): ProjectionVersionStatus {
  const when = new Date('2026-11-23T12:00:00Z');
  return { name, version, state, position, eventsApplied: 0, updatedAt: when, caughtUpAt: state === 'building' ? null : when, supersededAt: state === 'superseded' ? when : null, parked, stale: false, rebuild: null };
}

/** PostgreSQL's arithmetic: the difference of the identities, 0 when not behind, at least 1 when behind. */
async function identityDifference(after: GlobalPosition, upTo: GlobalPosition): Promise<number | null> {
  if (after.commit > upTo.commit || (after.commit === upTo.commit && after.prepare >= upTo.prepare)) return 0;
  return Math.max(1, Number(upTo.prepare - after.prepare));
}

describe('projectionReadings', () => {
  const head = at(900, 120);

  it("reads this release's versions only: checkpoint, parked and lag behind the head", async () => {
    const rows = [row('accounts', 3, 'superseded', at(500, 80)), row('accounts', 4, 'live', at(890, 100), 2), row('tags', 1, 'live', at(900, 120)), row('tags', 2, 'building', at(10, 5))];
    expect(await projectionReadings(rows, [{ name: 'accounts', version: 4 }, { name: 'tags', version: 1 }], head, identityDifference)).toEqual([
      { projection: 'accounts', version: 4, checkpoint: 100, parked: 2, lag: 20 },
      { projection: 'tags', version: 1, checkpoint: 120, parked: 0, lag: 0 },
    ]);
  });

  it('takes a version with no row yet as at the start, with nothing parked', async () => {
    expect(await projectionReadings([], [{ name: 'spending', version: 2 }], head, identityDifference)).toEqual([{ projection: 'spending', version: 2, checkpoint: 0, parked: 0, lag: 120 }]);
  });

  it('gives a superseded version no lag: it is not expected to follow the head', async () => {
    const readings = await projectionReadings([row('accounts', 4, 'superseded', at(500, 80))], [{ name: 'accounts', version: 4 }], head, identityDifference);
    expect(readings[0].lag).toBe(0);
  });

  it('leaves the lag unknown when the head could not be read, or the store cannot tell from positions (EventStoreDB)', async () => {
    const rows = [row('accounts', 4, 'live', at(890, 100), 1)];
    expect(await projectionReadings(rows, [{ name: 'accounts', version: 4 }], null, identityDifference)).toEqual([{ projection: 'accounts', version: 4, checkpoint: 100, parked: 1, lag: null }]);
    expect((await projectionReadings(rows, [{ name: 'accounts', version: 4 }], head, async () => null))[0].lag).toBeNull();
    expect((await projectionReadings(rows, [{ name: 'accounts', version: 4 }], head, () => Promise.reject(new Error('no')) ))[0].lag).toBeNull();
  });
});
