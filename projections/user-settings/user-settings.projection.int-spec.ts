import { randomUUID } from 'node:crypto';
import type { DatabaseConnection } from '../../src/infrastructure/database/database.js';
import type { PostgresEventStore } from '../../src/infrastructure/event-store/postgres-event-store.js';
import type { CheckpointWatch } from '../../src/infrastructure/projections/checkpoint-watch.js';
import { listParkedEvents } from '../../src/infrastructure/projections/parked-events.js';
import { userSettingsStreamId } from '../../src/modules/settings/user-settings.js';
import { type ProjectionFixture, startProjectionFixture } from '../../test/support/projection-fixture.js';
import { userSettingsProjection } from './user-settings.projection.js';

let fixture: ProjectionFixture;
let connection: DatabaseConnection;
let store: PostgresEventStore;
let watch: CheckpointWatch;

beforeAll(async () => {
  fixture = await startProjectionFixture(userSettingsProjection);
  ({ connection, store, watch } = fixture);
});
afterAll(() => fixture.close());

const streamOf = userSettingsStreamId;

async function setTimeZone(userId: string, timeZone: string | null): Promise<void> {
  const metadata = { userId, actor: 'user' as const, requestId: 'r', causationId: 'r', correlationId: 'r', occurredAt: '2026-11-20T10:00:00.000Z', schemaVersion: 1 };
  const result = await store.appendToStream(streamOf(userId), [{ type: 'UserTimeZoneSet', data: { timeZone }, metadata }], 'any');
  expect(await watch.waitFor(result.position, 10_000)).toBe(true);
}

const timeZoneOf = async (userId: string) =>
  (await connection.db.selectFrom('user_settings').select('time_zone').where('user_id', '=', userId).executeTakeFirst())?.time_zone ?? null;

describe('user-settings projection', () => {
  it('keeps each user’s latest time zone', async () => {
    const [alice, bob] = [randomUUID(), randomUUID()];
    await setTimeZone(alice, 'America/Los_Angeles');
    await setTimeZone(bob, 'Pacific/Auckland');
    await setTimeZone(alice, 'Europe/Paris');
    expect([await timeZoneOf(alice), await timeZoneOf(bob)]).toEqual(['Europe/Paris', 'Pacific/Auckland']);
  });

  it('parks a setting it cannot store and goes on with the next ones', async () => {
    const [broken, next] = [randomUUID(), randomUUID()];
    await setTimeZone(broken, null);
    await setTimeZone(next, 'Asia/Tokyo');
    const parked = (await listParkedEvents(connection.db)).filter((row) => row.stream_id === streamOf(broken));
    expect(parked).toEqual([expect.objectContaining({ projection: 'user-settings', event_type: 'UserTimeZoneSet', status: 'parked' })]);
    expect([await timeZoneOf(broken), await timeZoneOf(next)]).toEqual([null, 'Asia/Tokyo']);
  });

  // Last: once the rebuilt version is live it supersedes the current one, whose runner then stops.
  it('rebuilds the same rows from the events alone (a new version replays $all)', async () => {
    const [{ original, rebuilt }] = await fixture.rebuildBeside({ user_settings: 'user_id' });
    expect([rebuilt.length > 0, rebuilt]).toEqual([true, original]);
  });
});
