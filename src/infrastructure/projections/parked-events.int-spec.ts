import { randomUUID } from 'node:crypto';
import { formatPosition, type GlobalPosition } from '../../core/events.js';
import { listParkedEvents, retryParkedEvents, skipParkedEvent } from './parked-events.js';
import type { ProjectionDaemon } from './projection-daemon.js';
import { databaseError, recordingProjection, type RunnerFixture, startDaemon, startRunnerFixture, waitUntil } from './recording-projection.test-support.js';
import { projectionHealth, readProjectionVersions } from './projection-status.js';

let fixture: RunnerFixture;
let runner: ProjectionDaemon;

/** Version 1 of the code cannot apply `Poison` events: it throws, as a projector bug would. */
const buggy = () => recordingProjection({ fail: (event) => (event.type === 'Poison' ? new Error('projector bug: unknown field') : undefined) });

beforeEach(async () => {
  fixture = await startRunnerFixture();
  runner = startDaemon(fixture, [buggy()]);
});

afterEach(async () => {
  await runner.stop();
  await fixture.close();
});

async function parkPoison(): Promise<{ id: string; position: GlobalPosition }> {
  const [id] = await fixture.append(`thing-${randomUUID()}`, [{ type: 'Poison', data: { day: '2026-03-01' } }]);
  const position = fixture.lastAppended;
  expect(await fixture.watch.waitFor(position, 10_000)).toBe(true);
  return { id, position };
}

describe('operators and parked events', () => {
  it('retry after a code fix applies the event with the current code and marks it retried, with who and when', async () => {
    const poison = await parkPoison();
    const later = await fixture.appendEvents(2);
    expect(await fixture.watch.waitFor(fixture.lastAppended, 10_000)).toBe(true);
    expect(await fixture.recorded()).toEqual(later);

    // Still the buggy code: the retry fails, the event stays parked with one more attempt.
    const [failed] = await retryParkedEvents(fixture.connection.db, fixture.store, buggy(), { by: 'alice' });
    expect(failed).toMatchObject({ result: 'failed', error: 'projector bug: unknown field' });
    const [stillParked] = await listParkedEvents(fixture.connection.db);
    expect(stillParked).toMatchObject({ event_id: poison.id, status: 'parked', attempts: 4 });

    // The fixed code, while the service's runner keeps running beside it.
    const [retried] = await retryParkedEvents(fixture.connection.db, fixture.store, recordingProjection(), { by: 'alice', position: poison.position });
    expect(retried.result).toBe('retried');
    expect(await fixture.recorded()).toEqual([...later, poison.id]);
    const [row] = await listParkedEvents(fixture.connection.db, { status: 'all' });
    expect(row).toMatchObject({ event_id: poison.id, status: 'retried', resolved_by: 'alice' });
    expect(row.resolved_at).toBeInstanceOf(Date);
    expect(await listParkedEvents(fixture.connection.db)).toEqual([]);
    const [version] = await readProjectionVersions(fixture.connection.db);
    expect(version.eventsApplied).toBe(3);

    // Twice is harmless: nothing is left to retry.
    expect(await retryParkedEvents(fixture.connection.db, fixture.store, recordingProjection(), { by: 'bob' })).toEqual([]);
  });

  it('skip records who skipped the event and when, and the read model stays without it', async () => {
    const poison = await parkPoison();
    const before = Date.now();
    const skipped = await skipParkedEvent(fixture.connection.db, { name: 'recording', version: 1 }, poison.position, 'carol');
    expect(skipped).toMatchObject({ result: 'skipped', parked: { event_id: poison.id, status: 'skipped', resolved_by: 'carol' } });
    const resolvedAt = skipped.result === 'skipped' ? skipped.parked.resolved_at : null;
    expect(resolvedAt?.getTime()).toBeGreaterThanOrEqual(before - 1000);
    expect(await fixture.recorded()).toEqual([]);
    expect(await listParkedEvents(fixture.connection.db)).toEqual([]);

    expect(await skipParkedEvent(fixture.connection.db, { name: 'recording', version: 1 }, poison.position, 'dave')).toMatchObject({ result: 'already', parked: { resolved_by: 'carol' } });
    expect(await skipParkedEvent(fixture.connection.db, { name: 'recording', version: 1 }, { commit: 1n, prepare: 1n }, 'dave')).toEqual({ result: 'not-found' });
    // A skipped event is not retried.
    expect(await retryParkedEvents(fixture.connection.db, fixture.store, recordingProjection(), { by: 'erin' })).toEqual([]);
  });

  it('status and health count the open parked events of each version in one query', async () => {
    await waitUntil(async () => (await readProjectionVersions(fixture.connection.db))[0]?.state === 'live');
    expect(projectionHealth(await readProjectionVersions(fixture.connection.db), [{ name: 'recording', version: 1 }])).toEqual({ recording: { status: 'ok', parked: 0 } });
    const poison = await parkPoison();
    await parkPoison();
    const versions = await readProjectionVersions(fixture.connection.db);
    expect(versions).toEqual([expect.objectContaining({ name: 'recording', version: 1, state: 'live', parked: 2 })]);
    expect(projectionHealth(versions, [{ name: 'recording', version: 1 }, { name: 'missing', version: 1 }])).toEqual({
      recording: { status: 'parked', parked: 2 },
      missing: { status: 'building', parked: 0 },
    });
    expect(formatPosition(versions[0].position)).toBe(formatPosition(fixture.lastAppended));
    await skipParkedEvent(fixture.connection.db, { name: 'recording', version: 1 }, poison.position, 'carol');
    expect((await readProjectionVersions(fixture.connection.db))[0].parked).toBe(1);
  });

  it('a retry that meets a transient failure leaves the event parked to try again', async () => {
    const poison = await parkPoison();
    const flaky = recordingProjection({ fail: () => databaseError('40001', 'could not serialize access') });
    const [outcome] = await retryParkedEvents(fixture.connection.db, fixture.store, flaky, { by: 'alice' });
    expect(outcome).toMatchObject({ result: 'failed', error: 'could not serialize access (40001)' });
    expect(await listParkedEvents(fixture.connection.db)).toEqual([expect.objectContaining({ event_id: poison.id, status: 'parked' })]);
  });
});
