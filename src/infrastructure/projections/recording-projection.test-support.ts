import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { createTestDatabase, type TestDatabase } from '../../../test/support/test-database.js';
import type { EventMetadata, GlobalPosition, RecordedEvent } from '../../core/events.js';
import { connectDatabase, type DatabaseConnection } from '../database/database.js';
import { migrate } from '../database/migrate.js';
import { PostgresEventStore } from '../event-store/postgres-event-store.js';
import { CheckpointWatch } from './checkpoint-watch.js';
import { type ProjectionDefinition, projectionSchema, readModelSearchPath } from './projection.js';
import { ProjectionDaemon, type ProjectionDaemonOptions, type ProjectionLog } from './projection-daemon.js';

/** What the runner specs project: every event it applies becomes a row, so a duplicate or a gap shows. */
export interface RecordingOptions {
  readonly version?: number;
  readonly eventTypes?: readonly string[];
  readonly changedBy?: ProjectionDefinition['changedBy'];
  /** Throws from inside `apply`, after some rows of the call were written. */
  readonly fail?: (event: RecordedEvent, call: number, index: number, calledWith: number) => Error | undefined;
}

export const HAPPENED_TYPES = Array.from({ length: 60 }, (_, i) => `Happened${i}`);

/**
 * Rows carry the event's `day`: an event whose day PostgreSQL refuses (`0000-01-01`) is a poison
 * event, as in the incident behind issue 9.
 */
export function recordingProjection(options: RecordingOptions = {}): ProjectionDefinition {
  let calls = 0;
  return {
    name: 'recording',
    version: options.version ?? 1,
    tables: ['recorded_events'],
    eventTypes: options.eventTypes ?? [...HAPPENED_TYPES, 'Poison'],
    ...(options.changedBy ? { changedBy: options.changedBy } : {}),
    async createTables(db) {
      await sql`CREATE TABLE recorded_events (seq bigint GENERATED ALWAYS AS IDENTITY, event_id uuid NOT NULL, type text NOT NULL, day date)`.execute(db);
    },
    async apply(trx, events) {
      calls += 1;
      for (const [index, event] of events.entries()) {
        const day = (event.data as { day?: string }).day ?? null;
        await sql`INSERT INTO recorded_events (event_id, type, day) VALUES (${event.id}, ${event.type}, ${day}::date)`.execute(trx);
        const failure = options.fail?.(event, calls, index, events.length);
        if (failure) throw failure;
      }
    },
  };
}

export function eventMetadata(userId: string = randomUUID()): EventMetadata {
  return {
    userId,
    actor: 'user',
    requestId: `req-${randomUUID()}`,
    causationId: randomUUID(),
    correlationId: randomUUID(),
    occurredAt: new Date().toISOString(),
    schemaVersion: 1,
  };
}

export interface RunnerFixture {
  readonly database: TestDatabase;
  readonly connection: DatabaseConnection;
  readonly store: PostgresEventStore;
  readonly watch: CheckpointWatch;
  /** Where a reader has seen everything appended so far. */
  lastAppended: GlobalPosition;
  /** One event per new stream (one per user), each in its own append. */
  appendEvents(count: number, type?: (i: number) => string): Promise<string[]>;
  append(streamId: string, events: readonly { type: string; data: object }[]): Promise<string[]>;
  recorded(version?: number): Promise<string[]>;
  close(): Promise<void>;
}

export async function startRunnerFixture(versions: readonly number[] = [1]): Promise<RunnerFixture> {
  const database = await createTestDatabase();
  const definitions = versions.map((version) => recordingProjection({ version }));
  const connection = connectDatabase(database.url, { max: 12, searchPath: readModelSearchPath(definitions.slice(0, 1)) });
  await migrate(connection.db, definitions);
  const store = new PostgresEventStore(connection.pool);
  const watch = new CheckpointWatch(connection.db, connection.pool, [{ name: 'recording', version: versions[0] }]);
  await watch.start();
  const fixture: RunnerFixture = {
    database,
    connection,
    store,
    watch,
    lastAppended: { commit: 0n, prepare: 0n },
    async append(streamId, events) {
      const ids = events.map(() => randomUUID());
      const metadata = eventMetadata();
      const result = await store.appendToStream(
        streamId,
        events.map((event, i) => ({ id: ids[i], ...event, metadata })),
        'no_stream',
      );
      fixture.lastAppended = result.position;
      return ids;
    },
    async appendEvents(count, type = (i) => `Happened${i}`) {
      const ids: string[] = [];
      for (let i = 0; i < count; i += 1) ids.push(...(await fixture.append(`thing-${randomUUID()}`, [{ type: type(i), data: { i } }])));
      return ids;
    },
    async recorded(version = versions[0]) {
      const table = sql.table(`${projectionSchema({ name: 'recording', version })}.recorded_events`);
      const result = await sql<{ event_id: string }>`SELECT event_id FROM ${table} ORDER BY seq`.execute(connection.db);
      return result.rows.map((row) => row.event_id);
    },
    async close() {
      await watch.close();
      await store.close();
      await connection.close();
      await database.drop();
    },
  };
  return fixture;
}

/** A daemon over the fixture's database leading `projections`, quick to take over and to retry; stop it before closing the fixture. */
export function startDaemon(fixture: Pick<RunnerFixture, 'connection' | 'store' | 'watch'>, projections: readonly ProjectionDefinition[], options: ProjectionDaemonOptions = {}): ProjectionDaemon {
  const daemon = new ProjectionDaemon(fixture.connection, fixture.store, projections, fixture.watch, { standbyPollMs: 50, ...options });
  daemon.start();
  return daemon;
}

export interface LogLine {
  readonly level: 'info' | 'warn' | 'error';
  readonly fields: Record<string, unknown>;
  readonly message: string;
}

export function capturingLog(): ProjectionLog & { readonly lines: LogLine[] } {
  const lines: LogLine[] = [];
  return {
    lines,
    info: (fields, message) => lines.push({ level: 'info', fields: fields as Record<string, unknown>, message }),
    warn: (fields, message) => lines.push({ level: 'warn', fields: fields as Record<string, unknown>, message }),
    error: (fields, message) => lines.push({ level: 'error', fields: fields as Record<string, unknown>, message }),
  };
}

/** A PostgreSQL error as node-postgres reports it. */
export function databaseError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

export async function waitUntil(condition: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
