import { randomUUID } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '../../../test/support/test-database.js';
import type { Decider } from '../../core/decider.js';
import { NotFoundError } from '../../core/errors.js';
import type { DomainEvent } from '../../core/events.js';
import { connectDatabase } from '../database/database.js';
import { migrate } from '../database/migrate.js';
import type { EventStore, ReadStreamOptions } from './event-store.port.js';
import { type CommandContext, handleCommand, metadataFor } from './handle-command.js';
import { PostgresEventStore } from './postgres-event-store.js';

type Added = DomainEvent<'Added', { n: number }>;
type Command = { type: 'Add'; n: number } | { type: 'Peek' };
interface Sum {
  readonly total: number;
  readonly events: number;
}

/** Sums what was added; remembers every state it decided on. */
function summing(onDecide: (state: Sum) => void = () => undefined): Decider<Command, Added, Sum> & { seen: Sum[] } {
  const seen: Sum[] = [];
  return {
    seen,
    decide(command, state) {
      seen.push(state);
      onDecide(state);
      return command.type === 'Add' ? [{ type: 'Added', data: { n: command.n } }] : [];
    },
    evolve: (state, event) => ({ total: state.total + event.data.n, events: state.events + 1 }),
    initialState: () => ({ total: 0, events: 0 }),
  };
}

/**
 * The same store as a separate object (so with a cache of its own), recording each readStream's
 * fromRevision (`all` for a whole read); `beforeNextAppend`, when set, runs once before the next append.
 */
function recordingReads(store: EventStore): { store: EventStore; reads: (bigint | 'all')[]; beforeNextAppend?: () => Promise<unknown> } {
  const recorded: { store: EventStore; reads: (bigint | 'all')[]; beforeNextAppend?: () => Promise<unknown> } = { store, reads: [] };
  recorded.store = new Proxy(store, {
    get(target, property) {
      if (property === 'readStream') {
        return (streamId: string, options?: ReadStreamOptions) => {
          recorded.reads.push(options?.fromRevision ?? 'all');
          return target.readStream(streamId, options);
        };
      }
      if (property === 'appendToStream') {
        return async (...args: Parameters<EventStore['appendToStream']>) => {
          const before = recorded.beforeNextAppend;
          recorded.beforeNextAppend = undefined;
          await before?.();
          return target.appendToStream(...args);
        };
      }
      const value = Reflect.get(target, property) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return recorded;
}

const context = (userId: string): CommandContext => ({ userId, actor: 'user', requestId: randomUUID(), now: new Date('2026-11-23T12:00:00.000Z') });
const added = (userId: string, ...ns: number[]) => ns.map((n) => ({ type: 'Added', data: { n }, metadata: metadataFor(context(userId)) }));

let database: TestDatabase;
/** Two processes' stores on one database: each has its own cache. */
let one: PostgresEventStore;
let other: PostgresEventStore;

beforeAll(async () => {
  database = await createTestDatabase();
  const connection = connectDatabase(database.url, { max: 2 });
  await migrate(connection.db, []);
  await connection.close();
  one = PostgresEventStore.open(database.url, { max: 4 });
  other = PostgresEventStore.open(database.url, { max: 4 });
});

afterAll(async () => {
  await one.close();
  await other.close();
  await database.drop();
});

describe('handleCommand with the stream state cache', () => {
  it('reads the whole stream once, then decides on the state it folded, its own appends folded in, reading nothing', async () => {
    const { store, reads } = recordingReads(one);
    const [user, streamId, decider] = [randomUUID(), `sum-${randomUUID()}`, summing()];
    await one.appendToStream(streamId, added(user, ...Array.from({ length: 50 }, () => 1)), 'no_stream');
    await handleCommand(store, streamId, decider, { type: 'Add', n: 10 }, context(user), 'Sum');
    await handleCommand(store, streamId, decider, { type: 'Add', n: 100 }, context(user), 'Sum');
    expect(reads).toEqual(['all']);
    // A command that changes nothing cannot learn from an append that the state was stale: it reads the tail.
    const peek = await handleCommand(store, streamId, decider, { type: 'Peek' }, context(user), 'Sum');
    expect(reads).toEqual(['all', 52n]);
    expect(decider.seen).toEqual([{ total: 50, events: 50 }, { total: 60, events: 51 }, { total: 160, events: 52 }, { total: 160, events: 52 }]);
    expect(peek.state).toEqual({ total: 160, events: 52 });
  });

  it('finds out from the expected revision what another process appended since its last command, and reads only that', async () => {
    const { store, reads } = recordingReads(one);
    const [user, streamId, decider] = [randomUUID(), `sum-${randomUUID()}`, summing()];
    await handleCommand(store, streamId, decider, { type: 'Add', n: 1 }, context(user), 'Sum');
    await handleCommand(store, streamId, decider, { type: 'Peek' }, context(user), 'Sum');
    // The other process: through its own cache, and straight to the store.
    await handleCommand(other, streamId, summing(), { type: 'Add', n: 2 }, context(user), 'Sum');
    await other.appendToStream(streamId, added(user, 3, 4), 1n);
    const outcome = await handleCommand(store, streamId, decider, { type: 'Add', n: 5 }, context(user), 'Sum');
    // Decided on the cached state first (stale: a conflict), then on the tail read onto it.
    expect(decider.seen.slice(-2)).toEqual([{ total: 1, events: 1 }, { total: 10, events: 4 }]);
    expect(outcome.state).toEqual({ total: 15, events: 5 });
    expect(reads).toEqual(['all', 1n, 1n]);
    expect((await one.readStream(streamId)).map((event) => (event.data as { n: number }).n)).toEqual([1, 2, 3, 4, 5]);
  });

  it('after a conflict reads what the other writer appended, and decides again on it', async () => {
    const recorded = recordingReads(one);
    const { store, reads } = recorded;
    const [user, streamId, decider] = [randomUUID(), `sum-${randomUUID()}`, summing()];
    await handleCommand(store, streamId, decider, { type: 'Add', n: 1 }, context(user), 'Sum');
    await handleCommand(store, streamId, decider, { type: 'Peek' }, context(user), 'Sum');
    // The other writer's append lands between this command's read and its append.
    recorded.beforeNextAppend = () => other.appendToStream(streamId, added(user, 100), 0n);
    const outcome = await handleCommand(store, streamId, decider, { type: 'Add', n: 10 }, context(user), 'Sum');
    expect(reads).toEqual(['all', 1n, 1n]);
    expect(decider.seen.slice(-2)).toEqual([{ total: 1, events: 1 }, { total: 101, events: 2 }]);
    expect(outcome.state).toEqual({ total: 111, events: 3 });
    expect((await one.readStream(streamId)).map((event) => (event.data as { n: number }).n)).toEqual([1, 100, 10]);
  });

  it('loses no update when two processes run many commands on one stream at once', async () => {
    const [user, streamId] = [randomUUID(), `sum-${randomUUID()}`];
    const [here, there] = [summing(), summing()];
    await handleCommand(one, streamId, here, { type: 'Add', n: 0 }, context(user), 'Sum');
    await Promise.all(
      Array.from({ length: 8 }, (_, i) => [
        handleCommand(one, streamId, here, { type: 'Add', n: i + 1 }, context(user), 'Sum'),
        handleCommand(other, streamId, there, { type: 'Add', n: 100 * (i + 1) }, context(user), 'Sum'),
      ]).flat(),
    );
    const expected = { total: 36 + 3_600, events: 17 };
    expect((await handleCommand(one, streamId, here, { type: 'Peek' }, context(user), 'Sum')).state).toEqual(expected);
    expect((await handleCommand(other, streamId, there, { type: 'Peek' }, context(user), 'Sum')).state).toEqual(expected);
    expect((await one.readStream(streamId)).map((event) => event.revision)).toEqual(Array.from({ length: 17 }, (_, i) => BigInt(i)));
  });

  it('never serves a stream as another user’s: to them it does not exist, cached or not', async () => {
    const { store } = recordingReads(one);
    const [owner, intruder, streamId, decider] = [randomUUID(), randomUUID(), `sum-${randomUUID()}`, summing()];
    await one.appendToStream(streamId, added(owner, 7), 'no_stream');
    // Cold cache, the intruder first: its read fills the cache with the owner's state.
    await expect(handleCommand(store, streamId, decider, { type: 'Add', n: 1 }, context(intruder), 'Sum')).rejects.toBeInstanceOf(NotFoundError);
    expect((await handleCommand(store, streamId, decider, { type: 'Peek' }, context(intruder), 'Sum')).state).toEqual({ total: 0, events: 0 });
    expect((await handleCommand(store, streamId, decider, { type: 'Add', n: 1 }, context(owner), 'Sum')).state).toEqual({ total: 8, events: 2 });
    // Warm cache: still nothing for the intruder.
    expect((await handleCommand(store, streamId, decider, { type: 'Peek' }, context(intruder), 'Sum')).state).toEqual({ total: 0, events: 0 });
    await expect(handleCommand(store, streamId, decider, { type: 'Add', n: 1 }, context(intruder), 'Sum')).rejects.toBeInstanceOf(NotFoundError);
    expect((await one.readStream(streamId)).map((event) => event.metadata.userId)).toEqual([owner, owner]);
  });

  it('keeps the states of two deciders over one stream apart', async () => {
    const { store } = recordingReads(one);
    const [user, streamId] = [randomUUID(), `sum-${randomUUID()}`];
    const sums = summing();
    const doubled: Decider<Command, Added, Sum> = { ...summing(), evolve: (state, event) => ({ total: state.total + 2 * event.data.n, events: state.events + 1 }) };
    await handleCommand(store, streamId, sums, { type: 'Add', n: 1 }, context(user), 'Sum');
    await handleCommand(store, streamId, doubled, { type: 'Add', n: 2 }, context(user), 'Sum');
    await handleCommand(store, streamId, sums, { type: 'Add', n: 3 }, context(user), 'Sum');
    expect((await handleCommand(store, streamId, doubled, { type: 'Peek' }, context(user), 'Sum')).state).toEqual({ total: 12, events: 3 });
    expect((await handleCommand(store, streamId, sums, { type: 'Peek' }, context(user), 'Sum')).state).toEqual({ total: 6, events: 3 });
  });

  it('refuses a decide that writes to the state it was given, and the next command still folds correctly', async () => {
    const { store } = recordingReads(one);
    const [user, streamId] = [randomUUID(), `sum-${randomUUID()}`];
    const decider = summing();
    await handleCommand(store, streamId, decider, { type: 'Add', n: 4 }, context(user), 'Sum');
    const vandal: Decider<Command, Added, Sum> = {
      ...decider,
      decide(command, state) {
        (state as { total: number }).total = 1_000;
        return decider.decide(command, state);
      },
    };
    await expect(handleCommand(store, streamId, vandal, { type: 'Peek' }, context(user), 'Sum')).rejects.toThrow(TypeError);
    expect((await handleCommand(store, streamId, decider, { type: 'Peek' }, context(user), 'Sum')).state).toEqual({ total: 4, events: 1 });
  });
});
