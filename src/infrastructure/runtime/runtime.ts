import type { Logger } from 'pino';
import { PROJECTIONS } from '../../../projections/index.js';
import type { AppConfig } from '../../config/config.js';
import { type Clock, systemClock } from '../../core/clock.js';
import { connectDatabase, type DatabaseConnection } from '../database/database.js';
import { type EmbeddedDatabase, startEmbeddedPostgres } from '../database/embedded-postgres.js';
import { migrate } from '../database/migrate.js';
import type { EventStore } from '../event-store/event-store.port.js';
import { EventStoreDbEventStore } from '../event-store/eventstoredb-event-store.js';
import { PROJECTION_WRITER_APPLICATION } from '../event-store/feed-horizon.js';
import { PostgresEventStore } from '../event-store/postgres-event-store.js';
import { withUpcasting } from '../event-store/upcasting-event-store.js';
import { EVENT_SCHEMAS } from '../../event-upcasters.js';
import { BullMqJobRunner } from '../jobs/bullmq-job-runner.js';
import { InProcessJobRunner } from '../jobs/in-process-job-runner.js';
import { OutboxJobRunner } from '../jobs/outbox-job-runner.js';
import type { JobDefinition } from '../jobs/job.js';
import { withAppendMetrics } from '../metrics/metered-event-store.js';
import { type MetricsEndpoint, startMetricsServer } from '../metrics/metrics-server.js';
import type { ScrapeSources } from '../metrics/scrape-time-gauges.js';
import { ServiceMetrics } from '../metrics/service-metrics.js';
import { CheckpointWatch } from '../projections/checkpoint-watch.js';
import { type ProjectionDefinition, readModelSearchPath } from '../projections/projection.js';
import { ProjectionDaemon } from '../projections/projection-daemon.js';
import { ReadYourWrites } from './read-your-writes.js';

export interface Runtime {
  readonly config: AppConfig;
  readonly log: Logger;
  readonly clock: Clock;
  readonly database: DatabaseConnection;
  readonly eventStore: EventStore;
  readonly watch: CheckpointWatch;
  /** This process's projection daemon: at work while it holds the daemon lease (decision 0032). */
  readonly daemon: ProjectionDaemon;
  /** What the daemon runs: every read model, then the reactions. */
  readonly projections: readonly ProjectionDefinition[];
  readonly readYourWrites: ReadYourWrites;
  readonly jobs: OutboxJobRunner;
  readonly metrics: ServiceMetrics;
  /** Where `GET /metrics` listens; null unless METRICS_PORT is set. */
  readonly metricsEndpoint: MetricsEndpoint | null;
  close(): Promise<void>;
}

export interface OpenedDatabase {
  readonly connection: DatabaseConnection;
  readonly embedded: EmbeddedDatabase | null;
}

/** DATABASE_URL, or the embedded PostgreSQL under DATA_DIR (shared with a service already running there). */
export async function openDatabase(config: AppConfig, log: Logger, poolSize = 20, applicationName?: string): Promise<OpenedDatabase> {
  const embedded = config.databaseUrl ? null : await startEmbeddedPostgres(config.dataDir, config.embeddedPostgresPort, embeddedLog(log), { upgradePassword: config.embeddedPostgresUpgradePassword });
  const url = config.databaseUrl ?? (embedded as EmbeddedDatabase).url;
  const connection = connectDatabase(url, { max: poolSize, searchPath: readModelSearchPath(PROJECTIONS), ...(applicationName ? { applicationName } : {}) });
  return { connection, embedded };
}

function embeddedLog(log: Logger) {
  return { info: (message: string) => log.info({ postgres: 'embedded' }, message), warn: (message: string) => log.warn({ postgres: 'embedded' }, message) };
}

export function createEventStore(config: AppConfig, connection: DatabaseConnection, log?: Logger): EventStore {
  // The PostgreSQL store runs on connections of its own: their short statement_timeout bounds every
  // append, which lets `$all` readers stop waiting behind an old transaction (decision 0008).
  const store = config.eventStoreUrl
    ? new EventStoreDbEventStore(config.eventStoreUrl)
    : PostgresEventStore.open(connection.url, {
        inline: PROJECTIONS.filter((projection) => projection.mode === 'inline'),
        readModels: PROJECTIONS,
        onOldTransaction: (xid, runningForMs) => log?.warn({ xid, runningForMs }, 'a transaction open this long cannot be an append: the event feed no longer waits for it'),
        onEventsPassedOver: (xid, count) => log?.error({ xid, count }, 'events written outside the event store append were passed over by the feed; rebuild the projections'),
      });
  return withUpcasting(store, EVENT_SCHEMAS);
}

/** The event store, ready: on PostgreSQL, once it knows which inline read models are live. */
export async function startEventStore(config: AppConfig, connection: DatabaseConnection, log?: Logger): Promise<EventStore> {
  const store = createEventStore(config, connection, log);
  await store.start();
  return store;
}

export interface RuntimeOptions {
  readonly clock?: Clock;
  /** The reactions the daemon runs beside the read models (decision 0038). */
  readonly reactions?: (clock: Clock, config: AppConfig) => ProjectionDefinition[];
  readonly jobs?: (runtime: Omit<Runtime, 'jobs' | 'close'>) => JobDefinition<never>[];
  /** Background workers of the service's own (the webhook sender), started last and stopped first. */
  readonly workers?: (runtime: Omit<Runtime, 'close'>) => BackgroundWorker[];
}

/** Something that works in the background from start to shutdown, never inside a request. */
export interface BackgroundWorker {
  start(): void;
  stop(): Promise<void>;
}

/** Builds and starts everything the HTTP layer stands on, in dependency order. */
export async function startRuntime(config: AppConfig, log: Logger, options: RuntimeOptions = {}): Promise<Runtime> {
  const metrics = new ServiceMetrics();
  // First, so that a port already taken stops the start before anything else runs; until the
  // sources below exist, a scrape answers the process metrics alone.
  let scrapeSources: ScrapeSources | null = null;
  const metricsEndpoint =
    config.metricsPort === null ? null : await startMetricsServer(config.metricsHost, config.metricsPort, { contentType: metrics.contentType, scrape: () => metrics.scrape(scrapeSources) }, log);
  if (metricsEndpoint) log.info({ host: metricsEndpoint.host, port: metricsEndpoint.port }, 'Prometheus metrics at GET /metrics');
  try {
    return await startServices(config, log, options, metrics, metricsEndpoint, (sources) => (scrapeSources = sources));
  } catch (error) {
    await metricsEndpoint?.close();
    throw error;
  }
}

async function startServices(
  config: AppConfig,
  log: Logger,
  options: RuntimeOptions,
  metrics: ServiceMetrics,
  metricsEndpoint: MetricsEndpoint | null,
  scrapeFrom: (sources: ScrapeSources) => void,
): Promise<Runtime> {
  const clock = options.clock ?? systemClock;
  const { connection: database, embedded } = await openDatabase(config, log, 30);
  // A server gone from under the service is started again; one that cannot be is a reason to exit, for a supervisor to restart the service (decision 0030).
  embedded?.keepRunning((error) => {
    log.fatal({ err: error }, 'the embedded PostgreSQL is gone and cannot be started again: exiting');
    log.flush();
    process.exit(1);
  });
  const consumers = [...PROJECTIONS, ...(options.reactions?.(clock, config) ?? [])];
  const setups = await migrate(database.db, consumers);
  for (const setup of setups) if (setup.action !== 'current') log.info({ projection: setup.name, action: setup.action }, 'projection prepared');
  const eventStore = withAppendMetrics(await startEventStore(config, database, log), metrics);
  const watch = new CheckpointWatch(database.db, database.pool, consumers);
  await watch.start();
  // Connections of its own, named as projection writers: the feed never waits behind their transactions (decision 0032).
  const projectionWriters = connectDatabase(database.url, { max: 8, applicationName: PROJECTION_WRITER_APPLICATION, searchPath: readModelSearchPath(PROJECTIONS) });
  const daemon = new ProjectionDaemon(projectionWriters, eventStore, consumers, watch, { log });
  daemon.start();
  const readYourWrites = new ReadYourWrites(watch, config.readYourWritesTimeoutMs, log, PROJECTIONS);
  const base = { config, log, clock, database, eventStore, watch, daemon, projections: consumers, readYourWrites, metrics, metricsEndpoint };
  const definitions = options.jobs?.(base) ?? [];
  metrics.setJobNames(definitions.map((definition) => definition.name));
  const onJobError = (name: string, error: unknown) => log.error({ err: error, job: name }, 'job failed');
  const reporting = { observer: metrics.jobAttempts, log };
  const executor = config.redisUrl ? BullMqJobRunner.create(config.redisUrl, definitions, { onError: onJobError, ...reporting }) : new InProcessJobRunner(definitions, clock, onJobError, reporting);
  const jobs = OutboxJobRunner.start(database, executor, definitions.map((definition) => definition.name), { log });
  scrapeFrom({ db: database.db, eventStore, jobs, daemon, projections: consumers, store: config.eventStoreUrl ? 'eventstoredb' : 'postgresql' });
  const workers = options.workers?.({ ...base, jobs }) ?? [];
  for (const worker of workers) worker.start();
  let closing: Promise<void> | null = null;
  return {
    ...base,
    jobs,
    close() {
      closing ??= (async () => {
        await metricsEndpoint?.close();
        await Promise.all(workers.map((worker) => worker.stop()));
        await jobs.close();
        await daemon.stop();
        await projectionWriters.close();
        await watch.close();
        await eventStore.close();
        await database.close();
        await embedded?.stop();
      })();
      return closing;
    },
  };
}
