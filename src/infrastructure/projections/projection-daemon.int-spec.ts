import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { formatPosition } from '../../core/events.js';
import { PostgresEventStore } from '../event-store/postgres-event-store.js';
import { listParkedEvents } from './parked-events.js';
import { capturingLog, databaseError, HAPPENED_TYPES, recordingProjection, type RunnerFixture, startDaemon, startRunnerFixture, waitUntil } from './recording-projection.test-support.js';

let fixture: RunnerFixture;

afterEach(async () => {
  await fixture.close();
});

const errorsIn = (log: ReturnType<typeof capturingLog>) => log.lines.filter((line) => line.level === 'error');

describe('projection daemon', () => {
  it('applies nothing twice and loses nothing when a projector dies between and inside batches', async () => {
    fixture = await startRunnerFixture();
    const { connection } = fixture;
    const ids = await fixture.appendEvents(60);
    const log = capturingLog();
    // Half-way through the fourth batch the connection goes away: a transient failure, never parked.
    const killed = (_event: unknown, call: number, index: number, calledWith: number) =>
      call === 4 && index === Math.floor(calledWith / 2) ? databaseError('57P01', 'terminating connection due to administrator command') : undefined;
    const dying = startDaemon(fixture, [recordingProjection({ fail: killed })], { batchSize: 10, buildBatchSize: 10, log });
    await waitUntil(async () => errorsIn(log).length > 0);
    await dying.stop();
    // Whole batches committed with their checkpoint; the fourth rolled back entirely.
    const { events_applied: applied } = await connection.db.selectFrom('projection_versions').select('events_applied').executeTakeFirstOrThrow();
    expect(Number(applied)).toBeGreaterThanOrEqual(30);
    expect(await fixture.recorded()).toEqual(ids.slice(0, Number(applied)));

    const restarted = startDaemon(fixture, [recordingProjection()], { batchSize: 10 });
    expect(await fixture.watch.waitFor(fixture.lastAppended, 10_000)).toBe(true);
    await restarted.stop();
    expect(await fixture.recorded()).toEqual(ids);
    expect(await listParkedEvents(connection.db)).toEqual([]);
  });

  it('fans one read of the feed out to several projections, each with its own types and checkpoint', async () => {
    fixture = await startRunnerFixture();
    const { connection } = fixture;
    const everything = recordingProjection();
    const some = { ...recordingProjection({ eventTypes: ['Happened3', 'Happened7'] }), name: 'recording-some' };
    await sql`CREATE SCHEMA projection_recording_some_v1`.execute(connection.db);
    await sql`CREATE TABLE projection_recording_some_v1.recorded_events (seq bigint GENERATED ALWAYS AS IDENTITY, event_id uuid NOT NULL, type text NOT NULL, day date)`.execute(connection.db);
    await connection.db.insertInto('projection_versions').values({ name: 'recording-some', version: 1 }).execute();
    const daemon = startDaemon(fixture, [everything, some], { batchSize: 4 });
    const ids = await fixture.appendEvents(12);
    await waitUntil(async () => {
      const rows = await connection.db.selectFrom('projection_versions').select(['name', 'position_commit', 'position_prepare']).execute();
      return rows.every((row) => `${row.position_commit}/${row.position_prepare}` === formatPosition(fixture.lastAppended));
    });
    await daemon.stop();
    expect(await fixture.recorded()).toEqual(ids);
    const some_ = await sql<{ event_id: string }>`SELECT event_id FROM projection_recording_some_v1.recorded_events ORDER BY seq`.execute(connection.db);
    expect(some_.rows.map((row) => row.event_id)).toEqual([ids[3], ids[7]]);
  });

  it('stores a checkpoint that passed only events changing nothing a moment later or when it stops, and counts them as applied', async () => {
    fixture = await startRunnerFixture();
    const { connection, watch } = fixture;
    const stored = async () => {
      const row = await connection.db.selectFrom('projection_versions').select(['position_commit', 'position_prepare', 'events_applied']).executeTakeFirstOrThrow();
      return { position: formatPosition({ commit: BigInt(row.position_commit), prepare: BigInt(row.position_prepare) }), applied: Number(row.events_applied) };
    };
    const projection = () => recordingProjection({ eventTypes: [...HAPPENED_TYPES, 'Quiet'], changedBy: (event) => event.type !== 'Quiet' });
    const daemon = startDaemon(fixture, [projection()]);
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
    await daemon.stop();
    expect(await stored()).toEqual({ position: formatPosition(fixture.lastAppended), applied: 5 });
    // The next applying batch moves it from there.
    const restarted = startDaemon(fixture, [projection()]);
    const last = await fixture.appendEvents(1);
    expect(await watch.waitFor(fixture.lastAppended, 10_000)).toBe(true);
    await restarted.stop();
    expect(await stored()).toEqual({ position: formatPosition(fixture.lastAppended), applied: 6 });
    expect(await fixture.recorded()).toEqual([...applied, ...last]);
  });

  it('leaves out of a projection the events its append already applied inline, and still counts and passes them', async () => {
    fixture = await startRunnerFixture();
    const { connection, store, watch } = fixture;
    const daemon = startDaemon(fixture, [recordingProjection()]);
    const first = await fixture.appendEvents(1);
    expect(await watch.waitFor(fixture.lastAppended, 10_000)).toBe(true);
    // A store of a release that projects `recording` inline (here, projecting nothing: the daemon must not either).
    const inlineStore = new PostgresEventStore(connection.pool, { inline: [{ ...recordingProjection(), mode: 'inline', apply: async () => undefined }] });
    await inlineStore.start();
    const inline = await inlineStore.appendToStream(`thing-${randomUUID()}`, [{ type: 'Happened1', data: {}, metadata: (await store.readAll({ maxCount: 1 }))[0].metadata }], 'no_stream');
    await inlineStore.close();
    const last = await fixture.appendEvents(1);
    expect(await watch.waitFor(fixture.lastAppended, 10_000)).toBe(true);
    await daemon.stop();
    expect(inline.appliedInline).toEqual(['recording@1']);
    expect(await fixture.recorded()).toEqual([...first, ...last]);
    const { events_applied } = await connection.db.selectFrom('projection_versions').select('events_applied').executeTakeFirstOrThrow();
    expect(Number(events_applied)).toBe(3);
  });

  it('rides out its database connections being killed, and still applies everything exactly once', async () => {
    fixture = await startRunnerFixture();
    const { connection, watch } = fixture;
    const daemon = startDaemon(fixture, [recordingProjection()], { batchSize: 5 });
    try {
      await fixture.appendEvents(30);
      await sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`.execute(connection.db);
      // Pooled clients whose connection was killed fail once each; keep writing until they are replaced.
      for (let written = 0; written < 30; ) written += await fixture.appendEvents(1).then(() => 1, () => 0);
      expect(await watch.waitFor(fixture.lastAppended, 25_000)).toBe(true);
    } finally {
      await daemon.stop();
    }
    const stored = await sql<{ event_id: string }>`SELECT event_id FROM events ORDER BY transaction_id, global_position`.execute(connection.db);
    expect(stored.rows.length).toBeGreaterThanOrEqual(60);
    expect(await fixture.recorded()).toEqual(stored.rows.map((row) => row.event_id));
    expect(await listParkedEvents(connection.db)).toEqual([]);
  }, 45_000);

  it('leads in one process of two on one database, applying every event exactly once; the standby takes over when the leader stops', async () => {
    fixture = await startRunnerFixture();
    const { watch } = fixture;
    const first = startDaemon(fixture, [recordingProjection()], { batchSize: 7 });
    await waitUntil(async () => first.report().leading);
    const second = startDaemon(fixture, [recordingProjection()], { batchSize: 7 });
    const ids = await fixture.appendEvents(40);
    expect(await watch.waitFor(fixture.lastAppended, 10_000)).toBe(true);
    expect(second.report().leading).toBe(false);
    // Hand over: the leader stops, the standby takes the lease and carries on from the checkpoint.
    await first.stop();
    const more = await fixture.appendEvents(10);
    expect(await watch.waitFor(fixture.lastAppended, 10_000)).toBe(true);
    expect(second.report().leading).toBe(true);
    await second.stop();
    expect(await fixture.recorded()).toEqual([...ids, ...more]);
  });
});

describe('an event the projector cannot apply', () => {
  it('is parked within seconds, while the rest of its batch and other users’ later events are applied', async () => {
    fixture = await startRunnerFixture();
    const { connection, store, watch } = fixture;
    const log = capturingLog();
    const daemon = startDaemon(fixture, [recordingProjection()], { log });
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
      // A figure, not a bound: on a loaded machine any wall-clock limit is a coin toss.
      console.info(`projection daemon: poison event parked and checkpoint past it ${Date.now() - started} ms after its append`);

      // Other users keep writing: each of their events is applied in normal time.
      const later: string[] = [];
      for (let i = 0; i < 5; i += 1) {
        later.push(...(await fixture.appendEvents(1)));
        expect(await watch.waitFor(fixture.lastAppended, 5000)).toBe(true);
      }
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

      expect(errorsIn(log)).toEqual([
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
      await daemon.stop();
    }
  });

  it('is retried, never parked, while the failure is transient (serialization failure, deadlock)', async () => {
    fixture = await startRunnerFixture();
    const { connection, watch } = fixture;
    const log = capturingLog();
    let failures = 0;
    const flaky = () => (failures < 4 ? databaseError(failures++ % 2 === 0 ? '40001' : '40P01', 'could not serialize access due to concurrent update') : undefined);
    const daemon = startDaemon(fixture, [recordingProjection({ fail: flaky })], { log });
    try {
      const ids = await fixture.appendEvents(3);
      expect(await watch.waitFor(fixture.lastAppended, 15_000)).toBe(true);
      expect(errorsIn(log)).toHaveLength(4);
      expect(await fixture.recorded()).toEqual(ids);
      expect(await listParkedEvents(connection.db, { status: 'all' })).toEqual([]);
    } finally {
      await daemon.stop();
    }
  });
});

describe('a projection version', () => {
  it('is marked caught up at the head of the feed; a newer version that catches up supersedes it, and it stands down', async () => {
    fixture = await startRunnerFixture([1, 2]);
    const { connection, watch } = fixture;
    const versions = () => connection.db.selectFrom('projection_versions').selectAll().where('name', '=', 'recording').orderBy('version').execute();
    const log = capturingLog();
    const oldRelease = startDaemon(fixture, [recordingProjection({ version: 1 })], { log });
    const ids = await fixture.appendEvents(5);
    expect(await watch.waitFor(fixture.lastAppended, 10_000)).toBe(true);
    const [v1Live] = await versions();
    expect(v1Live.caught_up_at).toBeInstanceOf(Date);
    // The old release leads; the new one, started beside it, builds version 2 once it leads.
    await oldRelease.stop();
    const newRelease = startDaemon(fixture, [recordingProjection({ version: 2 })], { log });
    try {
      await waitUntil(async () => (await versions())[1].caught_up_at !== null);
      const [v1, v2] = await versions();
      expect(v1.superseded_at).toBeInstanceOf(Date);
      expect(v2.superseded_at).toBeNull();
      expect(await fixture.recorded(2)).toEqual(ids);
      await newRelease.stop();

      // The old release, restarted, finds version 1 superseded and does not project it.
      const restarted = startDaemon(fixture, [recordingProjection({ version: 1 })], { log });
      await waitUntil(async () => restarted.report().leading);
      await fixture.appendEvents(2);
      await waitUntil(async () => restarted.report().projections[0].state === 'superseded');
      await restarted.stop();
      expect(await fixture.recorded(1)).toEqual(ids);
      expect((await versions())[0].position_commit).toBe(v1.position_commit);
    } finally {
      await newRelease.stop();
    }
  });
});
