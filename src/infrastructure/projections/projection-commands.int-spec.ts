import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { createTestDatabase } from '../../../test/support/test-database.js';
import { comparePositions, formatPosition, type GlobalPosition } from '../../core/events.js';
import { connectDatabase } from '../database/database.js';
import { refuseUnmigrated, retryParked, showParkedEvents, showProjectionStatus, skipParked } from './projection-commands.js';
import type { ProjectionDaemon } from './projection-daemon.js';
import { recordingProjection, type RunnerFixture, startDaemon, startRunnerFixture, waitUntil } from './recording-projection.test-support.js';

function capture() {
  const lines: string[] = [];
  const errors: string[] = [];
  return { lines, errors, out: { log: (line: string) => lines.push(line), error: (line: string) => errors.push(line) } };
}

describe('projections commands', () => {
  let fixture: RunnerFixture;
  let runner: ProjectionDaemon;
  const buggy = recordingProjection({ fail: (event) => (event.type === 'Poison' ? new Error('cannot apply Poison') : undefined) });

  beforeAll(async () => {
    fixture = await startRunnerFixture();
    runner = startDaemon(fixture, [buggy]);
  });
  afterAll(async () => {
    await runner.stop();
    await fixture.close();
  });

  it('parked lists each parked event with its position as commit/prepare, stream, type, request id, attempts and error; retry and skip act on one by position', async () => {
    const streamId = `thing-${randomUUID()}`;
    await fixture.append(streamId, [{ type: 'Poison', data: {} }]);
    const first = fixture.lastAppended;
    await fixture.append(`thing-${randomUUID()}`, [{ type: 'Poison', data: {} }]);
    const second = fixture.lastAppended;
    expect(await fixture.watch.waitFor(second, 10_000)).toBe(true);
    const [event] = await fixture.store.readStream(streamId);

    const listed = capture();
    expect(await showParkedEvents(fixture.connection.db, listed.out)).toBe(0);
    expect(listed.lines[0]).toBe('projection\tversion\tposition\tstream\ttype\trequest\tattempts\tfirst failed\tlast failed\terror');
    expect(listed.lines[1]).toMatch(new RegExp(`^recording\t1\t${formatPosition(first)}\t${streamId}\tPoison\t${event.metadata.requestId}\t3\t\\S+Z\t\\S+Z\tcannot apply Poison$`));
    expect(listed.lines).toHaveLength(3);

    const status = capture();
    expect(await showProjectionStatus(fixture.connection.db, fixture.store, [buggy], status.out)).toBe(0);
    expect(status.lines[3]).toMatch(new RegExp(`^recording\t1\tlive\t${formatPosition(second)}\t0\t0\t2\t\\S+\tthis release$`));

    const badPosition = capture();
    expect(await skipParked(fixture.connection.db, [buggy], { projection: 'recording', position: '12', by: 'ops' }, badPosition.out)).toBe(2);
    expect(badPosition.errors[0]).toContain('commit/prepare');
    const unknown = capture();
    expect(await retryParked(fixture.connection.db, fixture.store, [buggy], { projection: 'nope', by: 'ops' }, unknown.out)).toBe(2);
    expect(unknown.errors[0]).toBe('Unknown projection "nope"; this release has: recording.');

    const skipped = capture();
    expect(await skipParked(fixture.connection.db, [buggy], { projection: 'recording', position: formatPosition(first), by: 'ops' }, skipped.out)).toBe(0);
    expect(skipped.lines[0]).toMatch(new RegExp(`^skipped recording version 1 at ${formatPosition(first)} \\(Poison in ${streamId}\\) by ops at \\S+Z$`));

    const stillBroken = capture();
    expect(await retryParked(fixture.connection.db, fixture.store, [buggy], { projection: 'recording', by: 'ops' }, stillBroken.out)).toBe(1);
    expect(stillBroken.errors).toEqual([expect.stringMatching(new RegExp(`^still parked ${formatPosition(second)} Poison in thing-\\S+: cannot apply Poison$`))]);

    const fixed = capture();
    expect(await retryParked(fixture.connection.db, fixture.store, [recordingProjection()], { projection: 'recording', position: formatPosition(second), by: 'ops' }, fixed.out)).toBe(0);
    expect(fixed.lines).toEqual([expect.stringMatching(/^retried .* \(by ops\)$/)]);

    const none = capture();
    await showParkedEvents(fixture.connection.db, none.out);
    expect(none.lines).toEqual(['No parked events.']);
    const history = capture();
    await showParkedEvents(fixture.connection.db, history.out, { all: true });
    expect(history.lines.slice(1).map((line) => line.split('\t').slice(-2)[0])).toEqual(['skipped', 'retried']);
  });
});

describe('projections status lag', () => {
  it('is worked out from the positions, not counted: ~N events behind the head for a version that has not applied them, 0 at the head', async () => {
    const fixture = await startRunnerFixture();
    try {
      await fixture.appendEvents(25);
      await waitUntil(async () => comparePositions(await fixture.store.headPosition(), fixture.lastAppended) >= 0);
      const reads: string[] = [];
      const store = {
        headPosition: () => fixture.store.headPosition(),
        approximateEventsBetween: (after: GlobalPosition, upTo: GlobalPosition) => fixture.store.approximateEventsBetween(after, upTo),
        readAll: () => {
          reads.push('readAll');
          return Promise.resolve([]);
        },
      };
      const behind = capture();
      expect(await showProjectionStatus(fixture.connection.db, store, [recordingProjection()], behind.out)).toBe(0);
      expect(behind.lines[0]).toBe(`head ${formatPosition(fixture.lastAppended)}`);
      // No daemon runs here: the status says so, loudly.
      expect(behind.lines[1]).toMatch(/NO INSTANCE IS APPLYING THE PROJECTIONS/);
      // Nothing applied yet: 25 appends, one identity each, none rolled back, so the estimate is exact.
      expect(behind.lines[3]).toMatch(/^recording\t1\tbuilding\t0\/0\t0\t~25\t0\t/);
      expect(reads).toEqual([]);

      await sql`UPDATE projection_versions SET position_commit = ${fixture.lastAppended.commit.toString()}, position_prepare = ${fixture.lastAppended.prepare.toString()}`.execute(fixture.connection.db);
      const caughtUp = capture();
      await showProjectionStatus(fixture.connection.db, store, [recordingProjection()], caughtUp.out);
      expect(caughtUp.lines[3].split('\t')[5]).toBe('0');
    } finally {
      await fixture.close();
    }
  });
});

describe('read-only projections commands on a database that is not migrated', () => {
  it('refuse with a sentence naming `ledgerline migrate`, and create nothing', async () => {
    const database = await createTestDatabase();
    const connection = connectDatabase(database.url, { max: 2 });
    try {
      const { errors, out } = capture();
      expect(await refuseUnmigrated(connection.db, out)).toBe(true);
      expect(errors[0]).toMatch(/^The database is not migrated to this release \(pending: 0001-event-store, .*\)\. Run `ledgerline migrate` first; this command changes nothing\.$/);
      const tables = await sql<{ count: number }>`SELECT count(*)::int AS count FROM information_schema.tables WHERE table_schema NOT IN ('pg_catalog', 'information_schema')`.execute(connection.db);
      expect(tables.rows[0].count).toBe(0);
    } finally {
      await connection.close();
      await database.drop();
    }
  });
});
