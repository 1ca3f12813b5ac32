import { randomUUID } from 'node:crypto';
import { createMigratedDatabase, type TestDatabase } from '../../../test/support/test-database.js';
import type { DatabaseConnection } from '../database/database.js';
import { exportLineOf } from './event-log.port.js';
import { loggedStreams } from './event-chain-contract.test-support.js';
import { event, metadata, stream } from './event-store-test-events.test-support.js';
import { PostgresEventLog } from './postgres-event-log.js';
import { PostgresEventStore } from './postgres-event-store.js';

let database: TestDatabase;
let connection: DatabaseConnection;
let store: PostgresEventStore;
let log: PostgresEventLog;

beforeAll(async () => {
  ({ database, connection } = await createMigratedDatabase());
  store = new PostgresEventStore(connection.pool);
  log = new PostgresEventLog(connection.pool);
});

afterAll(async () => {
  await store.close();
  await connection.close();
  await database.drop();
});

async function exported(userId: string, pageSize?: number): Promise<string> {
  let text = '';
  for await (const page of log.exportPages(userId, await store.headPosition(), pageSize)) text += page;
  return text;
}

describe('PostgreSQL event log: one user’s export', () => {
  it('writes each event as exportLineOf would, PostgreSQL building the line from the stored row', async () => {
    const userId = randomUUID();
    const id = stream();
    await store.appendToStream(id, [{ type: 'Noted', data: { text: 'Café ☕ "quoted" \\ back\nslash', amount: '-12.5000', nested: { b: [1, 2.5, null] } }, metadata: metadata({ userId }) }], 'no_stream');
    const [logged] = (await loggedStreams(log, [id])).get(id) ?? [];
    const lines = (await exported(userId)).split('\n');
    expect(lines.at(-1)).toBe('');
    expect(JSON.parse(lines[0])).toEqual(exportLineOf(logged));
  });

  it('gives one user’s events alone, in the feed’s order, page after page, none twice, and nothing after the head it was given', async () => {
    const [mine, theirs] = [randomUUID(), randomUUID()];
    const streams = [stream(), stream(), stream()];
    for (let round = 0; round < 5; round += 1) {
      for (const [index, streamId] of streams.entries()) {
        const userId = index === 1 ? theirs : mine;
        await store.appendToStream(streamId, [{ ...event('Step', { round }), metadata: metadata({ userId }) }], round === 0 ? 'no_stream' : BigInt(round - 1));
      }
    }
    const upTo = await store.headPosition();
    await store.appendToStream(streams[0], [{ ...event('Later'), metadata: metadata({ userId: mine }) }], 4n);
    let text = '';
    for await (const page of log.exportPages(mine, upTo, 3)) text += page;
    const lines = text.trim().split('\n').map((line) => JSON.parse(line) as { stream: string; revision: number; position: string; metadata: { userId: string } });
    expect(lines).toHaveLength(10);
    expect(new Set(lines.map((line) => line.metadata.userId))).toEqual(new Set([mine]));
    expect(lines.map((line) => `${line.stream === streams[0] ? 'a' : 'c'}${line.revision}`)).toEqual(['a0', 'c0', 'a1', 'c1', 'a2', 'c2', 'a3', 'c3', 'a4', 'c4']);
    expect(await exported(randomUUID())).toBe('');
  });
});
