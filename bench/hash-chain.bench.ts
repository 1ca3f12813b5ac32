import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import type { EventMetadata } from '../src/core/events.js';
import { timeOrderedId } from '../src/core/ids.js';
import { connectDatabase } from '../src/infrastructure/database/database.js';
import { migrate } from '../src/infrastructure/database/migrate.js';
import type { NewEvent } from '../src/infrastructure/event-store/event-store.port.js';
import { metadataFor } from '../src/infrastructure/event-store/handle-command.js';
import { canonicalJson, chainHashHex, eventJsonOf, stampIds } from '../src/infrastructure/event-store/event-chain.js';
import { appendStatement, newStreamEvents, newStreamsStatement } from '../src/infrastructure/event-store/postgres-append-statements.js';
import { figuresOf, type LoadFigures, type LoadSamples, rawLoadSamples } from './support/raw-load.js';

/**
 * What the hash chain (decision 0044) costs an append, measured in one run against appends
 * without it. Four scratch databases on one server, each appended to the same way:
 *  - before: the schema and INSERT of the release before the chain (no hash columns; the
 *    statement kept here as the reference);
 *  - unchained: this release's statements with the chain taken out (no hash columns, data and
 *    metadata as JSON.stringify writes them, nothing hashed; kept here): what the chain alone costs;
 *  - chained: this release's statements (the store's `appendStatement` and `newStreamsStatement`:
 *    canonical JSON sent, each event's links worked out from the stream head the store remembers,
 *    checked and stored by the statement);
 *  - chained + export index: the same with the `events_by_user` index the export reads (all this issue adds).
 * Each round appends to each database in turn (so what else the machine does falls on all three),
 * one event at a time at the expected revision — a PATCH's append — from 1 writer (latency) and
 * from 8 (throughput); 2 events at once (a new account, a balance patch: the event and its
 * snapshot); 10 at once; and 100 new streams of one event at once (`appendToNewStreams`, an
 * import's or a sync page's transactions); each on connections as the store opens its own
 * (pipeline mode, 5 s statement timeout). Only the statement differs: what the store does around
 * it (the notification after an append) is the same before and after the chain. Beside appends/s
 * and latency (which the machine's other work moves a lot on a shared machine), the CPU time
 * each append took — this process's and its PostgreSQL backends' (/proc), measured per run — which
 * other work does not move: the chain's cost is the extra CPU per append.
 * `npm run bench:hash-chain`; BENCH_DATABASE_URL names an admin connection (scratch databases created and dropped).
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SECONDS_PER_ROUND = Number(process.env.BENCH_SECONDS ?? 2);
/** Streams a bulk append creates at once (a statement import's or a sync page's transactions). */
const NEW_STREAMS_AT_ONCE = 100;
const STREAMS_PER_WRITER = 50;
/** Writers × events per append (0: a bulk creation of new streams); BENCH_LOADS=8x2,8x10 runs those alone. */
const LOADS = (process.env.BENCH_LOADS ?? '1x1,8x1,8x2,8x10,4x0').split(',').map((load) => load.split('x').map(Number) as [number, number]);

type Variant = 'before' | 'unchained' | 'chained' | 'chained + export index';

interface Target {
  readonly variant: Variant;
  readonly pool: pg.Pool;
  append(streamId: string, events: readonly NewEvent[], expected: bigint | 'no_stream'): Promise<void>;
  appendNewStreams(streams: readonly { streamId: string; events: NewEvent[] }[]): Promise<void>;
}

async function main(): Promise<void> {
  const adminUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  const names: string[] = [];
  const closers: Array<() => Promise<void>> = [];
  const scratch = async (schema: (pool: pg.Pool) => Promise<void>) => {
    const name = `ledgerline_bench_${randomBytes(6).toString('hex')}`;
    names.push(name);
    await admin.query(`CREATE DATABASE ${name}`);
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    const connection = connectDatabase(url.toString(), { max: 2 });
    await migrate(connection.db, []);
    await schema(connection.pool);
    await connection.close();
    return url.toString();
  };
  try {
    const beforeUrl = await scratch(async (pool) => {
      await pool.query('DROP INDEX events_by_user');
      await pool.query('ALTER TABLE events DROP COLUMN previous_hash, DROP COLUMN hash');
    });
    const unchainedUrl = await scratch(async (pool) => {
      await pool.query('DROP INDEX events_by_user');
      await pool.query('ALTER TABLE events DROP COLUMN previous_hash, DROP COLUMN hash');
    });
    const chainedUrl = await scratch(async (pool) => {
      await pool.query('DROP INDEX events_by_user');
    });
    const fullUrl = await scratch(async () => undefined);
    const [before, unchained, chained, full] = [beforeUrl, unchainedUrl, chainedUrl, fullUrl].map(storePool);
    closers.push(() => before.end(), () => unchained.end(), () => chained.end(), () => full.end());
    const targets: Target[] = [
      { variant: 'before', pool: before, append: (streamId, events, expected) => appendBeforeTheChain(before, streamId, events, expected), appendNewStreams: (streams) => newStreamsBeforeTheChain(before, streams) },
      { variant: 'unchained', pool: unchained, append: (streamId, events, expected) => appendWithoutTheChain(unchained, streamId, events, expected), appendNewStreams: (streams) => newStreamsWithoutTheChain(unchained, streams) },
      { variant: 'chained', pool: chained, append: (streamId, events, expected) => appendChained(chained, streamId, events, expected), appendNewStreams: (streams) => newStreamsChained(chained, streams) },
      { variant: 'chained + export index', pool: full, append: (streamId, events, expected) => appendChained(full, streamId, events, expected), appendNewStreams: (streams) => newStreamsChained(full, streams) },
    ];
    console.log(`Appends to PostgreSQL, ${ROUNDS} rounds of ${SECONDS_PER_ROUND} s per variant and load, taken in turns (before, unchained, chained, chained + export index):`);
    for (const [writers, batch] of LOADS) {
      const figures = await measure(targets, writers, batch);
      const base = figures.get('before') as Measured;
      const what = batch === 0 ? `${NEW_STREAMS_AT_ONCE} new streams of one event per append` : `${batch} event${batch === 1 ? '' : 's'} per append`;
      console.log(`\n${writers} writer${writers === 1 ? '' : 's'}, ${what}:`);
      for (const [variant, result] of figures) {
        const cpu = result.nodeMicros + result.postgresMicros;
        const baseCpu = base.nodeMicros + base.postgresMicros;
        const unchainedCpu = (figures.get('unchained') as Measured).nodeMicros + (figures.get('unchained') as Measured).postgresMicros;
        const change = (from: number) => `${cpu >= from ? '+' : ''}${(((cpu - from) / from) * 100).toFixed(1)}%`;
        const cost = variant === 'before' ? '' : `  → CPU ${change(baseCpu)} on before${variant === 'unchained' ? '' : `, ${change(unchainedCpu)} on unchained`}; appends/s ×${(result.load.requestsPerSecond / base.load.requestsPerSecond).toFixed(3)}`;
        console.log(
          `  ${variant.padEnd(24)} CPU ${cpu.toFixed(0).padStart(5)} µs per append (node ${result.nodeMicros.toFixed(0)}, PostgreSQL ${result.postgresMicros.toFixed(0)})  ` +
            `${Math.round(result.load.requestsPerSecond).toLocaleString('en').padStart(6)} appends/s  p50 ${result.load.p50.toFixed(2)} ms  p99 ${result.load.p99.toFixed(2)} ms${cost}`,
        );
      }
    }
    printPerEventWork();
  } finally {
    for (const close of closers) await close();
    for (const name of names) await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

/**
 * What the chain adds to the service's work per event, apart from any I/O: the canonical JSON of
 * an event's data and metadata against the JSON.stringify of the two it replaces, and one SHA-256
 * by node:crypto over the link's input and over 32 bytes (what a call costs whatever it hashes).
 */
function printPerEventWork(): void {
  const stream = `transaction-${randomUUID()}`;
  const event = edited(stream, 1);
  const body = eventJsonOf(randomUUID(), stream, 1n, event.type, canonicalJson(event.data), canonicalJson(event.metadata));
  const previous = Buffer.alloc(32);
  const micros = (work: () => unknown) => {
    for (let index = 0; index < 20_000; index += 1) work();
    const start = process.hrtime.bigint();
    for (let index = 0; index < 200_000; index += 1) work();
    return Number(process.hrtime.bigint() - start) / 200_000 / 1000;
  };
  console.log(`\nPer event, apart from I/O (a PATCH's event, ${Buffer.byteLength(body)} bytes of canonical JSON; µs, in a loop — the service pays about twice this between its I/O):`);
  console.log(`  JSON.stringify of data and metadata ${micros(() => JSON.stringify(event.data) + JSON.stringify(event.metadata)).toFixed(2)}, canonical JSON of the two ${micros(() => canonicalJson(event.data) + canonicalJson(event.metadata)).toFixed(2)}`);
  const previousHex = previous.toString('hex');
  console.log(
    `  SHA-256 by node:crypto of the link's input: a hash object ${micros(() => createHash('sha256').update(previous).update(body, 'utf8').digest()).toFixed(2)}, one call into a reused buffer (the append's chainHashHex) ${micros(() => chainHashHex(previousHex, body)).toFixed(2)}; a hash object over 32 bytes ${micros(() => createHash('sha256').update(previous).digest()).toFixed(2)}`,
  );
}

/**
 * Each variant's figures over all rounds; every writer appends to streams of its own, each at the
 * revision it last wrote (`batch` 0: creates new streams instead).
 */
async function measure(targets: readonly Target[], writers: number, batch: number): Promise<Map<Variant, Measured>> {
  const samples = new Map<Variant, LoadSamples[]>(targets.map((target) => [target.variant, []]));
  const cpu = new Map<Variant, { node: number; postgres: number }>(targets.map((target) => [target.variant, { node: 0, postgres: 0 }]));
  const heads = new Map<Variant, Map<string, bigint>>();
  const streamsOf = new Map<Variant, string[][]>();
  for (const target of targets) {
    const streams = Array.from({ length: writers }, () => Array.from({ length: STREAMS_PER_WRITER }, () => `transaction-${randomUUID()}`));
    const revisions = new Map<string, bigint>();
    for (const stream of streams.flat()) {
      await target.append(stream, [created(stream)], 'no_stream');
      revisions.set(stream, 0n);
    }
    heads.set(target.variant, revisions);
    streamsOf.set(target.variant, streams);
  }
  const run = (target: Target, seconds: number) =>
    rawLoadSamples(writers, seconds * 1000, async (worker, iteration) => {
      if (batch === 0) {
        await target.appendNewStreams(Array.from({ length: NEW_STREAMS_AT_ONCE }, () => `transaction-${randomUUID()}`).map((streamId) => ({ streamId, events: [created(streamId)] })));
        return;
      }
      const stream = (streamsOf.get(target.variant) as string[][])[worker][iteration % STREAMS_PER_WRITER];
      const revisions = heads.get(target.variant) as Map<string, bigint>;
      const expected = revisions.get(stream) as bigint;
      await target.append(stream, Array.from({ length: batch }, (_, index) => edited(stream, iteration * batch + index)), expected);
      revisions.set(stream, expected + BigInt(batch));
    });
  for (const target of targets) await run(target, 1);
  // Each variant's server processes work only in its own turns: their CPU is read once around all rounds (ticks of 10 ms, so once).
  const pids = new Map<Variant, number[]>();
  for (const target of targets) pids.set(target.variant, await backendPids(target.pool));
  const postgresAtStart = new Map([...pids].map(([variant, ids]) => [variant, cpuMicros(ids)]));
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const target of targets) {
      const nodeBefore = process.cpuUsage();
      (samples.get(target.variant) as LoadSamples[]).push(await run(target, SECONDS_PER_ROUND));
      const used = process.cpuUsage(nodeBefore);
      (cpu.get(target.variant) as { node: number; postgres: number }).node += used.user + used.system;
    }
  }
  for (const [variant, ids] of pids) (cpu.get(variant) as { node: number; postgres: number }).postgres = cpuMicros(ids) - (postgresAtStart.get(variant) as number);
  return new Map(
    [...samples].map(([variant, runs]) => {
      const load = figuresOf(runs);
      const spent = cpu.get(variant) as { node: number; postgres: number };
      return [variant, { load, nodeMicros: spent.node / load.count, postgresMicros: spent.postgres / load.count }];
    }),
  );
}

interface Measured {
  readonly load: LoadFigures;
  /** CPU time per append of this process and of its PostgreSQL backends, µs. */
  readonly nodeMicros: number;
  readonly postgresMicros: number;
}

/** Connections as the store opens its own (pipeline mode, 5 s statement timeout), kept open: their backends' CPU is counted. */
function storePool(url: string): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max: 8, idleTimeoutMillis: 0, application_name: 'ledgerline-events', options: '-c statement_timeout=5000', pipeline: true } as pg.PoolConfig);
  pool.on('error', () => undefined);
  return pool;
}

/** The server processes behind the pool's connections, every one opened first. */
async function backendPids(pool: pg.Pool): Promise<number[]> {
  const clients = await Promise.all(Array.from({ length: 8 }, () => pool.connect()));
  try {
    return await Promise.all(clients.map(async (client) => (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid));
  } finally {
    for (const client of clients) client.release();
  }
}

/** User + system CPU time of server processes, µs (clock ticks of 10 ms). */
function cpuMicros(pids: readonly number[]): number {
  return pids.reduce((sum, pid) => {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return sum + (Number(fields[11]) + Number(fields[12])) * 10_000;
  }, 0);
}

/** As every command's events carry it. */
const metadata = (): EventMetadata => metadataFor({ userId: '419452ec-9243-4713-a57c-7ee6bd1c70d5', actor: 'user', requestId: randomUUID(), causationId: randomUUID(), correlationId: randomUUID(), now: new Date() });

function created(stream: string): NewEvent {
  const transactionId = stream.slice('transaction-'.length);
  return {
    type: 'TransactionCreated',
    data: { transactionId, accountId: randomUUID(), source: 'manual', amount: '-12.5', date: '2026-11-20', name: 'Corner Cafe', merchantName: null, categoryId: null, notes: null, pending: false, paymentChannel: 'in store', location: null, tagIds: [], authorizedDate: null },
    metadata: metadata(),
  };
}

/** A PATCH's event: two fields changed. */
function edited(stream: string, iteration: number): NewEvent {
  return {
    type: 'TransactionEdited',
    data: {
      transactionId: stream.slice('transaction-'.length),
      changes: [
        { field: 'amount', oldValue: '-12.5', newValue: `-${13 + (iteration % 50)}`, locked: true },
        { field: 'notes', oldValue: null, newValue: `bench ${iteration}`, locked: true },
      ],
    },
    metadata: metadata(),
  };
}

/** The hash of each stream's last event, as the store remembers it for the stream's next append. */
const heads = new Map<string, Buffer | null>();

async function appendChained(pool: pg.Pool, streamId: string, events: readonly NewEvent[], expected: bigint | 'no_stream'): Promise<void> {
  const { statement, lastHash } = appendStatement(streamId, stampIds(events), expected, heads.get(streamId) ?? null);
  const { rows } = await pool.query(statement);
  if (rows.length === 0) throw new Error(`chained: ${streamId} is not at revision ${String(expected)}`);
  heads.set(streamId, lastHash);
}

async function newStreamsChained(pool: pg.Pool, streams: readonly { streamId: string; events: NewEvent[] }[]): Promise<void> {
  const { rows } = await pool.query(newStreamsStatement(newStreamEvents(streams), []));
  if (rows.length !== streams.length) throw new Error('chained: a new stream existed');
}

/** This release's append with the chain taken out: the same parameters, data and metadata as JSON.stringify writes them, no hash. */
async function appendWithoutTheChain(pool: pg.Pool, streamId: string, events: readonly NewEvent[], expected: bigint | 'no_stream'): Promise<void> {
  const values: unknown[] = [streamId, expected === 'no_stream' ? '-1' : expected.toString(), null];
  const rows = events.map((event, index) => {
    const at = values.length + 1;
    values.push(timeOrderedId(), event.type, JSON.stringify(event.data), JSON.stringify(event.metadata));
    return `(${index + 1}, $${at}::text::uuid, $${at + 1}::text, $${at + 2}::text::jsonb, $${at + 3}::text::jsonb)`;
  });
  const base = expected === 'no_stream' ? '(SELECT 1 WHERE $2::bigint = -1) base' : '(SELECT 1 FROM events WHERE stream_id = $1 AND stream_revision = $2::bigint) base';
  const { rows: appended } = await pool.query({
    name: `unchained-${expected === 'no_stream' ? 'new' : 'expected'}-${events.length}`,
    text: `INSERT INTO events (event_id, stream_id, stream_revision, type, data, metadata, applied_inline)
      SELECT e.id, $1, $2::bigint + e.ordinal, e.type, e.data, e.metadata, $3::text[]
        FROM ${base}, LATERAL (VALUES ${rows.join(', ')}) e(ordinal, id, type, data, metadata) ORDER BY e.ordinal
      RETURNING stream_revision, transaction_id::text AS commit_position, global_position`,
    values,
  });
  if (appended.length === 0) throw new Error(`unchained: ${streamId} is not at revision ${String(expected)}`);
}

/** This release's bulk creation with the chain taken out: each event a line of JSON, parsed once, no hash. */
async function newStreamsWithoutTheChain(pool: pg.Pool, streams: readonly { streamId: string; events: NewEvent[] }[]): Promise<void> {
  const lines = streams.flatMap(({ streamId, events }) => events.map((event, revision) => JSON.stringify({ id: timeOrderedId(), streamId, revision, type: event.type, data: event.data, metadata: event.metadata })));
  const { rows } = await pool.query({
    text: `WITH e AS MATERIALIZED (SELECT l.ordinal, l.line::jsonb AS body FROM unnest(string_to_array($1::text, E'\\n')) WITH ORDINALITY AS l(line, ordinal))
      INSERT INTO events (event_id, stream_id, stream_revision, type, data, metadata, applied_inline)
      SELECT (e.body->>'id')::uuid, e.body->>'streamId', (e.body->>'revision')::bigint, e.body->>'type', e.body->'data', e.body->'metadata', $2::text[]
        FROM e WHERE NOT EXISTS (SELECT 1 FROM events existing WHERE existing.stream_id = e.body->>'streamId')
       ORDER BY e.ordinal
      RETURNING stream_id, transaction_id::text AS commit_position, global_position`,
    values: [lines.join('\n'), null],
  });
  if (rows.length !== streams.length) throw new Error('unchained: a new stream existed');
}

/** The bulk creation of the release before the chain, on its schema: the reference. */
async function newStreamsBeforeTheChain(pool: pg.Pool, streams: readonly { streamId: string; events: NewEvent[] }[]): Promise<void> {
  const events = streams.flatMap(({ streamId, events: first }) => first.map((event, revision) => ({ streamId, revision, event })));
  const document = JSON.stringify(events.map(({ streamId, revision, event }, ordinal) => ({ ordinal, id: timeOrderedId(), stream_id: streamId, revision, type: event.type, data: event.data, metadata: event.metadata })));
  const { rows } = await pool.query({
    text: `INSERT INTO events (event_id, stream_id, stream_revision, type, data, metadata, applied_inline)
      SELECT e.id, e.stream_id, e.revision, e.type, e.data, e.metadata, $2::text[]
        FROM jsonb_to_recordset($1::jsonb) AS e(ordinal int, id uuid, stream_id text, revision bigint, type text, data jsonb, metadata jsonb)
       WHERE NOT EXISTS (SELECT 1 FROM events existing WHERE existing.stream_id = e.stream_id)
       ORDER BY e.ordinal
      RETURNING stream_id, transaction_id::text AS commit_position, global_position`,
    values: [document, null],
  });
  if (rows.length !== streams.length) throw new Error('before: a new stream existed');
}

/** The append of the release before the chain, on its schema: the reference. */
async function appendBeforeTheChain(pool: pg.Pool, streamId: string, events: readonly NewEvent[], expected: bigint | 'no_stream'): Promise<void> {
  const values = [streamId, events.map(() => timeOrderedId()), events.map((event) => event.type), events.map((event) => JSON.stringify(event.data)), events.map((event) => JSON.stringify(event.metadata))];
  const insert = `INSERT INTO events (event_id, stream_id, stream_revision, type, data, metadata)
    SELECT e.id, $1, base.next + e.ordinal - 1, e.type, e.data, e.metadata
      FROM unnest($2::uuid[], $3::text[], $4::jsonb[], $5::jsonb[]) WITH ORDINALITY AS e(id, type, data, metadata, ordinal)`;
  const returning = 'RETURNING stream_revision, transaction_id::text AS commit_position, global_position';
  const { rows } =
    expected === 'no_stream'
      ? await pool.query({ name: 'before-append-new', text: `${insert}, (SELECT 0::bigint AS next) base ORDER BY e.ordinal ${returning}`, values })
      : await pool.query({
          name: 'before-append-expected',
          text: `${insert}, (SELECT $6::bigint + 1 AS next) base WHERE EXISTS (SELECT 1 FROM events WHERE stream_id = $1 AND stream_revision = $6::bigint) ORDER BY e.ordinal ${returning}`,
          values: [...values, expected.toString()],
        });
  if (rows.length === 0) throw new Error(`before: ${streamId} is not at revision ${String(expected)}`);
}

await main();
