import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { formatPosition } from '../../core/events.js';
import { listParkedEvents } from './parked-events.js';
import { ProjectionRunner } from './projection-runner.js';
import { capturingLog, databaseError, HAPPENED_TYPES, recordingProjection, type RunnerFixture, startRunnerFixture, waitUntil } from './projection-runner.test-support.js';

let fixture: RunnerFixture;

afterEach(async () => {
  await fixture.close();
});

describe('projection runner', () => {
  it('applies nothing twice and loses nothing when a projector dies between and inside batches', async () => {
    fixture = await startRunnerFixture();
    const { connection, store, watch } = fixture;
    const ids = await fixture.appendEvents(60);
    const errors: unknown[] = [];
    // Half-way through the fourth batch the connection goes away: a transient failure, never parked.
    const killed = (_event: unknown, call: number, index: number, calledWith: number) =>
      call === 4 && index === Math.floor(calledWith / 2) ? databaseError('57P01', 'terminating connection due to administrator command') : undefined;
    const dying = new ProjectionRunner(connection, store, recordingProjection({ fail: killed }), watch, { batchSize: 10, onError: (e) => errors.push(e) });
    dying.start();
    await waitUntil(async () => errors.length > 0);
    await dying.stop();
    // Three whole batches committed with their checkpoint; the fourth rolled back entirely.
    const { events_applied: applied } = await connection.db.selectFrom('projection_versions').select('events_applied').executeTakeFirstOrThrow();
    expect(Number(applied)).toBeGreaterThanOrEqual(3);
    expect(Number(applied)).toBeLessThan(60);
    expect(await fixture.recorded()).toEqual(ids.slice(0, Number(applied)));

    const restarted = new ProjectionRunner(connection, store, recordingProjection(), watch, { batchSize: 10 });
    restarted.start();
    expect(await watch.waitFor(fixture.lastAppended, 10_000)).toBe(true);
    await restarted.stop();
    expect(await fixture.recorded()).toEqual(ids);
    expect(await listParkedEvents(connection.db)).toEqual([]);
  });

  it('only moves the checkpoint over batches with none of its event types, and still reaches the head', async () => {
    fixture = await startRunnerFixture();
    const ids = await fixture.appendEvents(12);
    const runner = new ProjectionRunner(fixture.connection, fixture.store, recordingProjection({ eventTypes: ['Happened3', 'Happened7'] }), fixture.watch, { batchSize: 4 });
    runner.start();
    expect(await fixture.watch.waitFor(fixture.lastAppended, 10_000)).toBe(true);
    await runner.stop();
    expect(await fixture.recorded()).toEqual([ids[3], ids[7]]);
  });

  it('stores a checkpoint that passed only events changing nothing a moment later or when it stops, and counts them as applied', async () => {
    fixture = await startRunnerFixture();
    const { connection, watch } = fixture;
    const stored = async () => {
      const row = await connection.db.selectFrom('projection_versions').select(['position_commit', 'position_prepare', 'events_applied']).executeTakeFirstOrThrow();
      return { position: formatPosition({ commit: BigInt(row.position_commit), prepare: BigInt(row.position_prepare) }), applied: Number(row.events_applied) };
    };
    const projection = () => recordingProjection({ eventTypes: [...HAPPENED_TYPES, 'Quiet'], changedBy: (event) => event.type !== 'Quiet' });
    const runner = new ProjectionRunner(connection, fixture.store, projection(), watch);
    runner.start();
    const applied = await fixture.appendEvents(2);
    expect(await watch.waitFor(fixture.lastAppended, 10_000)).toBe(true);
    // Of its types but changing nothing (Quiet), and of other types (Elsewhere): nothing applied, the wait ends all the same.
    await fixture.appendEvents(4, (i) => (i % 2 === 0 ? 'Quiet' : 'Elsewhere'));
    expect(await watch.waitFor(fixture.lastAppended, 10_000)).toBe(true);
    await waitUntil(async () => (await stored()).position === formatPosition(fixture.lastAppended));
    expect(await stored()).toEqual({ position: formatPosition(fixture.lastAppended), applied: 4 });
    expect(await fixture.recorded()).toEqual(applied);
    // Stopped right after such a batch: the move is stored on the way out, not left to the next holder.
    await fixture.appendEvents(1, () => 'Quiet');
    expect(await watch.waitFor(fixture.lastAppended, 10_000)).toBe(true);
    await runner.stop();
    expect(await stored()).toEqual({ position: formatPosition(fixture.lastAppended), applied: 5 });
    // The next applying batch moves it from there.
    const restarted = new ProjectionRunner(connection, fixture.store, projection(), watch);
    restarted.start();
    const last = await fixture.appendEvents(1);
    expect(await watch.waitFor(fixture.lastAppended, 10_000)).toBe(true);
    await restarted.stop();
    expect(await stored()).toEqual({ position: formatPosition(fixture.lastAppended), applied: 6 });
    expect(await fixture.recorded()).toEqual([...applied, ...last]);
  });

  it('rides out its database connections being killed, and still applies everything exactly once', async () => {
    fixture = await startRunnerFixture();
    const { connection, watch } = fixture;
    const runner = new ProjectionRunner(connection, fixture.store, recordingProjection(), watch, { batchSize: 5 });
    runner.start();
    try {
      await fixture.appendEvents(30);
      await sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`.execute(connection.db);
      // Pooled clients whose connection was killed fail once each; keep writing until they are replaced.
      for (let written = 0; written < 30; ) written += await fixture.appendEvents(1).then(() => 1, () => 0);
      expect(await watch.waitFor(fixture.lastAppended, 25_000)).toBe(true);
    } finally {
      await runner.stop();
    }
    const stored = await sql<{ event_id: string }>`SELECT event_id FROM events ORDER BY transaction_id, global_position`.execute(connection.db);
    expect(stored.rows.length).toBeGreaterThanOrEqual(60);
    expect(await fixture.recorded()).toEqual(stored.rows.map((row) => row.event_id));
    expect(await listParkedEvents(connection.db)).toEqual([]);
  }, 45_000);

  it('applies every event exactly once with two runners (two instances) on one database', async () => {
    fixture = await startRunnerFixture();
    const { connection, store, watch } = fixture;
    const first = new ProjectionRunner(connection, store, recordingProjection(), watch, { batchSize: 7 });
    const second = new ProjectionRunner(connection, store, recordingProjection(), watch, { batchSize: 7 });
    first.start();
    second.start();
    const ids = await fixture.appendEvents(40);
    expect(await watch.waitFor(fixture.lastAppended, 10_000)).toBe(true);
    // Hand over: the leader stops, the standby takes the lease and carries on from the checkpoint.
    await first.stop();
    const more = await fixture.appendEvents(10);
    expect(await watch.waitFor(fixture.lastAppended, 10_000)).toBe(true);
    await second.stop();
    expect(await fixture.recorded()).toEqual([...ids, ...more]);
  });
});

describe('an event the projector cannot apply', () => {
  it('is parked within seconds, while the rest of its batch and other users’ later events are applied', async () => {
    fixture = await startRunnerFixture();
    const { connection, store, watch } = fixture;
    const log = capturingLog();
    const runner = new ProjectionRunner(connection, store, recordingProjection(), watch, { log });
    runner.start();
    try {
      const before = await fixture.appendEvents(3);
      expect(await watch.waitFor(fixture.lastAppended, 10_000)).toBe(true);

      // One append, one batch: a good event, one PostgreSQL refuses (year 0), another good one.
      const started = Date.now();
      const streamId = `thing-${randomUUID()}`;
      const [goodBefore, poison, goodAfter] = await fixture.append(streamId, [
        { type: 'Happened1', data: { day: '2026-01-01' } },
        { type: 'Poison', data: { day: '0000-01-01' } },
        { type: 'Happened2', data: { day: '2026-01-02' } },
      ]);
      const poisonAt = fixture.lastAppended;
      expect(await watch.waitFor(poisonAt, 10_000)).toBe(true);
      const timeToPark = Date.now() - started;
      // A figure, not a bound: on a loaded machine any wall-clock limit is a coin toss.
      console.info(`projection runner: poison event parked and checkpoint past it ${timeToPark} ms after its append`);

      // Other users keep writing: each of their events is applied in normal time.
      const lags: number[] = [];
      const later: string[] = [];
      for (let i = 0; i < 5; i += 1) {
        const appended = Date.now();
        later.push(...(await fixture.appendEvents(1)));
        expect(await watch.waitFor(fixture.lastAppended, 5000)).toBe(true);
        lags.push(Date.now() - appended);
      }
      console.info(`projection runner: later events applied within ${Math.max(...lags)} ms each`);
      expect(await fixture.recorded()).toEqual([...before, goodBefore, goodAfter, ...later]);

      const [parked] = await listParkedEvents(connection.db);
      expect(parked).toMatchObject({
        projection: 'recording',
        version: 1,
        event_id: poison,
        stream_id: streamId,
        event_type: 'Poison',
        attempts: 3,
        status: 'parked',
        resolved_at: null,
      });
      expect(parked.error).toMatch(/out of range.*\(22008\)/);
      expect(parked.error).not.toMatch(/\n\s+at /);
      const poisonEvent = (await store.readStream(streamId))[1];
      expect([parked.position_commit, parked.position_prepare].join('/')).toBe(formatPosition(poisonEvent.position));
      expect(parked.request_id).toBe(poisonEvent.metadata.requestId);
      expect(parked.user_id).toBe(poisonEvent.metadata.userId);
      expect(watch.parkedWithin(poisonEvent.position, ['recording'])).toBe('recording');

      expect(log.lines).toEqual([
        {
          level: 'error',
          message: expect.stringContaining('parked'),
          fields: expect.objectContaining({
            projection: 'recording',
            position: formatPosition(poisonEvent.position),
            eventType: 'Poison',
            streamId,
            userId: poisonEvent.metadata.userId,
            requestId: poisonEvent.metadata.requestId,
            correlationId: poisonEvent.metadata.correlationId,
          }),
        },
      ]);
      const checkpoint = await connection.db.selectFrom('projection_versions').select('events_applied').where('name', '=', 'recording').executeTakeFirstOrThrow();
      expect(Number(checkpoint.events_applied)).toBe(3 + 2 + 5);
    } finally {
      await runner.stop();
    }
  });

  it('is retried, never parked, while the failure is transient (serialization failure, deadlock)', async () => {
    fixture = await startRunnerFixture();
    const { connection, store, watch } = fixture;
    const errors: unknown[] = [];
    let failures = 0;
    const flaky = () => (failures < 4 ? databaseError(failures++ % 2 === 0 ? '40001' : '40P01', 'could not serialize access due to concurrent update') : undefined);
    const runner = new ProjectionRunner(connection, store, recordingProjection({ fail: flaky }), watch, { onError: (error) => errors.push(error) });
    runner.start();
    try {
      const ids = await fixture.appendEvents(3);
      expect(await watch.waitFor(fixture.lastAppended, 15_000)).toBe(true);
      expect(errors).toHaveLength(4);
      expect(await fixture.recorded()).toEqual(ids);
      expect(await listParkedEvents(connection.db, { status: 'all' })).toEqual([]);
    } finally {
      await runner.stop();
    }
  });
});

describe('a projection version', () => {
  it('is marked caught up at the head of the feed; a newer version that catches up supersedes it, and its runner stands down', async () => {
    fixture = await startRunnerFixture([1, 2]);
    const { connection, store, watch } = fixture;
    const versions = () => connection.db.selectFrom('projection_versions').selectAll().where('name', '=', 'recording').orderBy('version').execute();
    const log = capturingLog();
    const first = new ProjectionRunner(connection, store, recordingProjection({ version: 1 }), watch, { log });
    first.start();
    const ids = await fixture.appendEvents(5);
    expect(await watch.waitFor(fixture.lastAppended, 10_000)).toBe(true);
    const [v1Live] = await versions();
    expect(v1Live.caught_up_at).toBeInstanceOf(Date);

    const second = new ProjectionRunner(connection, store, recordingProjection({ version: 2 }), watch, { log });
    second.start();
    try {
      await waitUntil(async () => (await versions())[1].caught_up_at !== null);
      const [v1, v2] = await versions();
      expect(v1.superseded_at).toBeInstanceOf(Date);
      expect(v2.superseded_at).toBeNull();
      expect(await fixture.recorded(2)).toEqual(ids);

      // The next event: version 2 applies it, version 1's runner finds out and stops for good.
      const more = await fixture.appendEvents(2);
      await waitUntil(async () => log.lines.length > 0);
      await waitUntil(async () => (await fixture.recorded(2)).length === 7);
      expect(await fixture.recorded(2)).toEqual([...ids, ...more]);
      expect(await fixture.recorded(1)).toEqual(ids);
      expect((await versions())[0].position_commit).toBe(v1.position_commit);
      const superseded = { level: 'warn', message: 'projection recording version 1 is superseded by version 2; this release stops projecting it', fields: expect.objectContaining({ version: 1 }) };
      expect(log.lines).toEqual([superseded]);

      // A runner of version 1 started later (an old release restarting) does not project either.
      const restarted = new ProjectionRunner(connection, store, recordingProjection({ version: 1 }), watch, { log });
      restarted.start();
      await waitUntil(async () => log.lines.length === 2);
      expect(log.lines[1]).toEqual(superseded);
      await restarted.stop();
    } finally {
      await first.stop();
      await second.stop();
    }
  });
});
