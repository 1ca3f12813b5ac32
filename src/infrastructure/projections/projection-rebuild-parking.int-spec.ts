import { randomUUID } from 'node:crypto';
import { formatPosition } from '../../core/events.js';
import { listParkedEvents, skipParkedEvent } from './parked-events.js';
import { rebuildProjection } from './projection-rebuild.js';
import { recordingProjection, type RunnerFixture, startDaemon, startRunnerFixture } from './recording-projection.test-support.js';

let fixture: RunnerFixture;

afterEach(async () => {
  await fixture.close();
});

describe('a rebuild and parked events', () => {
  it('re-parks what it still cannot apply, resolves what it now applies, and leaves out what an operator skipped', async () => {
    fixture = await startRunnerFixture();
    const { connection, store, watch } = fixture;
    const projection = recordingProjection();
    const runner = startDaemon(fixture, [projection]);
    try {
      const first = await fixture.appendEvents(3);
      const poison = (day: string) => fixture.append(`thing-${randomUUID()}`, [{ type: 'Poison', data: { day } }]);
      const [stillParked] = await poison('0000-01-01');
      const [skipped] = await poison('0000-01-02');
      const last = await fixture.appendEvents(2);
      expect(await watch.waitFor(fixture.lastAppended, 10_000)).toBe(true);
      const parkedBefore = await listParkedEvents(connection.db);
      expect(parkedBefore.map((row) => row.event_id)).toEqual([stillParked, skipped]);
      const skippedRow = parkedBefore[1];
      await skipParkedEvent(connection.db, projection, { commit: BigInt(skippedRow.position_commit), prepare: BigInt(skippedRow.position_prepare) }, 'operator');
      // As if an older build of the projector had failed on a good event: parked, though the code applies it now.
      const [good] = await store.readAll({ maxCount: 1 });
      await connection.db
        .insertInto('parked_events')
        .values({
          projection: 'recording', version: 1, position_commit: good.position.commit.toString(), position_prepare: good.position.prepare.toString(), event_id: good.id,
          stream_id: 'x', event_type: 'Happened0', user_id: null, request_id: null, correlation_id: null, error: 'old bug', attempts: 3, first_failed_at: new Date(), last_failed_at: new Date(),
        })
        .execute();
      const before = await connection.db.selectFrom('projection_versions').select('events_applied').executeTakeFirstOrThrow();

      const outcome = await rebuildProjection(connection, store, projection, { batchSize: 2 });
      expect(outcome.parked).toBe(1);
      const after = await listParkedEvents(connection.db, { status: 'all' });
      const byEvent = new Map(after.map((row) => [row.event_id, row]));
      expect(byEvent.get(stillParked)).toMatchObject({ status: 'parked', attempts: 4, resolved_by: null });
      expect(byEvent.get(stillParked)?.error).toMatch(/out of range/);
      expect(byEvent.get(skipped)).toMatchObject({ status: 'skipped', resolved_by: 'operator' });
      expect(byEvent.get(good.id)).toMatchObject({ status: 'retried', resolved_by: 'rebuild' });
      expect(formatPosition({ commit: BigInt(byEvent.get(good.id)!.position_commit), prepare: BigInt(byEvent.get(good.id)!.position_prepare) })).toBe(formatPosition(good.position));
      expect(await fixture.recorded()).toEqual([...first, ...last]);
      expect(await connection.db.selectFrom('projection_versions').select('events_applied').executeTakeFirstOrThrow()).toEqual(before);

      // The runner carries on in the rebuilt tables.
      const more = await fixture.appendEvents(2);
      expect(await watch.waitFor(fixture.lastAppended, 10_000)).toBe(true);
      expect(await fixture.recorded()).toEqual([...first, ...last, ...more]);
    } finally {
      await runner.stop();
    }
  }, 60_000);
});
