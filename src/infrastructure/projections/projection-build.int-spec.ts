import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { RecordedEvent } from '../../core/events.js';
import { listParkedEvents } from './parked-events.js';
import type { ProjectionDefinition } from './projection.js';
import { capturingLog, recordingProjection, type RunnerFixture, startDaemon, startRunnerFixture, waitUntil } from './recording-projection.test-support.js';

let fixture: RunnerFixture;

afterEach(async () => {
  await fixture.close();
});

/** The recording projection, counting how many events each call of `apply` was given. */
function countingCalls(projection: ProjectionDefinition): { projection: ProjectionDefinition; calls: number[] } {
  const calls: number[] = [];
  return { calls, projection: { ...projection, apply: (trx, events: readonly RecordedEvent[]) => (calls.push(events.length), projection.apply(trx, events)) } };
}

describe('a new projection version’s first build', () => {
  it('replays in large batches of its own event types, analyzes its tables at the head, then follows the feed', async () => {
    fixture = await startRunnerFixture();
    const { connection, watch } = fixture;
    const ids = await fixture.appendEvents(600, (i) => (i % 3 === 0 ? 'Other' : `Happened${i % 60}`));
    const { projection, calls } = countingCalls(recordingProjection());
    const runner = startDaemon(fixture, [projection]);
    try {
      expect(await watch.waitFor(fixture.lastAppended, 20_000)).toBe(true);
      // 400 of its types among 600 events: one read, one call (the feed's batches are 500 events of every type).
      expect(calls).toEqual([400]);
      expect(await fixture.recorded()).toEqual(ids.filter((_, i) => i % 3 !== 0));
      const version = await connection.db.selectFrom('projection_versions').selectAll().executeTakeFirstOrThrow();
      expect(version.caught_up_at).toBeInstanceOf(Date);
      expect(Number(version.events_applied)).toBe(400);
      // The statistics views learn of an ANALYZE when its backend flushes them (up to a second later).
      const analyzed = async () =>
        (
          await sql<{ analyzed: boolean }>`
            SELECT last_analyze IS NOT NULL AS analyzed FROM pg_stat_user_tables WHERE schemaname = 'projection_recording_v1' AND relname = 'recorded_events'`.execute(connection.db)
        ).rows[0]?.analyzed === true;
      await waitUntil(analyzed, 10_000);

      const more = await fixture.appendEvents(3);
      expect(await watch.waitFor(fixture.lastAppended, 10_000)).toBe(true);
      expect((await fixture.recorded()).slice(-3)).toEqual(more);
    } finally {
      await runner.stop();
    }
  });

  it('parks an event it cannot apply while the rest of its batch applies', async () => {
    fixture = await startRunnerFixture();
    const { connection, watch } = fixture;
    const before = await fixture.appendEvents(50);
    const [poison] = await fixture.append(`thing-${randomUUID()}`, [{ type: 'Poison', data: { day: '0000-01-01' } }]);
    const after = await fixture.appendEvents(50);
    const log = capturingLog();
    const runner = startDaemon(fixture, [recordingProjection()], { log });
    try {
      expect(await watch.waitFor(fixture.lastAppended, 20_000)).toBe(true);
      await waitUntil(async () => (await connection.db.selectFrom('projection_versions').select('caught_up_at').executeTakeFirstOrThrow()).caught_up_at !== null);
      expect(await fixture.recorded()).toEqual([...before, ...after]);
      expect(await listParkedEvents(connection.db)).toEqual([expect.objectContaining({ event_id: poison, attempts: 3, status: 'parked' })]);
      expect(log.lines.filter((line) => line.level !== 'info')).toEqual([expect.objectContaining({ level: 'error', fields: expect.objectContaining({ eventId: poison }) })]);
    } finally {
      await runner.stop();
    }
  });
});
