import type { Kysely } from 'kysely';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { GlobalPosition } from '../../core/events.js';
import type { Database } from '../database/schema.js';
import type { EventStore } from '../event-store/event-store.port.js';
import type { JobRunner } from '../jobs/job.js';
import type { ProjectionDefinition } from '../projections/projection.js';
import { type ProjectionVersionStatus, readProjectionVersions } from '../projections/projection-status.js';
import { projectionReadings } from './projection-readings.js';

/** What a scrape reads: one query for the projections, one for the head, one Redis round trip. */
export interface ScrapeSources {
  readonly db: Kysely<Database>;
  readonly eventStore: Pick<EventStore, 'headPosition' | 'approximateEventsBetween'>;
  readonly jobs: Pick<JobRunner, 'queueDepth'>;
  /** Which store the positions come from: they mean different things in each. */
  readonly store: 'postgresql' | 'eventstoredb';
  /** This release's projection versions: the ones reported. */
  readonly projections: readonly Pick<ProjectionDefinition, 'name' | 'version'>[];
  /** This process's daemon, for whether it leads. */
  readonly daemon?: { report(): { leading: boolean } };
}

export type ScrapeSource = 'projections' | 'event_store' | 'jobs';
const SOURCES: readonly ScrapeSource[] = ['projections', 'event_store', 'jobs'];

/** A source slower than this is given up for this scrape (Prometheus' own timeout is 10 s by default). */
export const SCRAPE_SOURCE_TIMEOUT_MS = 2000;

/**
 * Gauges whose values are read when Prometheus scrapes. Every gauge is emptied first and only a
 * source that answered fills its own, so a source that is down shows as missing series (and as
 * `ledgerline_scrape_source_up 0`), never as the last value it had.
 */
export class ScrapeTimeGauges {
  private readonly head: Gauge<'store'>;
  private readonly checkpoint: Gauge<'projection' | 'version'>;
  private readonly lag: Gauge<'projection' | 'version'>;
  private readonly parked: Gauge<'projection' | 'version'>;
  private readonly rebuilding: Gauge<'projection' | 'version'>;
  private readonly leading: Gauge;
  private readonly queueDepth: Gauge<'state'>;
  private readonly sourceUp: Gauge<'source'>;
  private readonly scrapeErrors: Counter<'source'>;

  constructor(registry: Registry) {
    const registers = [registry];
    // Labelled even though there is one series: prom-client reports an unlabelled gauge as 0 after a reset, and a head that could not be read must be missing.
    this.head = new Gauge({
      name: 'ledgerline_event_store_head_position',
      help: "Position (prepare part) of the newest event readers can see: PostgreSQL's events.global_position, EventStoreDB's prepare position",
      labelNames: ['store'] as const,
      registers,
    });
    const byVersion = ['projection', 'version'] as const;
    this.checkpoint = new Gauge({ name: 'ledgerline_projection_checkpoint_position', help: "Position (prepare part) of the last event each of this release's projection versions applied", labelNames: byVersion, registers });
    this.lag = new Gauge({
      name: 'ledgerline_projection_lag_events',
      help: 'Events between a projection version and the head, from the positions alone (approximate; absent where the store cannot tell)',
      labelNames: byVersion,
      registers,
    });
    this.parked = new Gauge({ name: 'ledgerline_projection_parked_events', help: 'Events a projection version parked and nobody has retried or skipped yet', labelNames: byVersion, registers });
    this.rebuilding = new Gauge({
      name: 'ledgerline_projection_rebuild_events_applied',
      help: 'Events a `projections rebuild` under way has applied to its shadow so far (absent when no rebuild runs)',
      labelNames: byVersion,
      registers,
    });
    this.leading = new Gauge({ name: 'ledgerline_projection_daemon_leading', help: "Whether this instance's projection daemon holds the lease and applies the projections (1) or stands by (0)", registers });
    this.queueDepth = new Gauge({ name: 'ledgerline_job_queue_depth', help: 'Jobs not finished, by state (waiting, delayed, active; held: in the outbox, not handed to the queue yet)', labelNames: ['state'] as const, registers });
    this.sourceUp = new Gauge({ name: 'ledgerline_scrape_source_up', help: 'Whether the last scrape could read this source (1) or not (0)', labelNames: ['source'] as const, registers });
    this.scrapeErrors = new Counter({ name: 'ledgerline_scrape_errors_total', help: 'Scrapes in which a source failed or took longer than 2 s', labelNames: ['source'] as const, registers });
    for (const source of SOURCES) this.scrapeErrors.inc({ source }, 0);
  }

  async refresh(sources: ScrapeSources): Promise<void> {
    for (const gauge of [this.head, this.checkpoint, this.lag, this.parked, this.rebuilding, this.queueDepth]) gauge.reset();
    if (sources.daemon) this.leading.set(sources.daemon.report().leading ? 1 : 0);
    const [versions, head, depth] = await Promise.all([
      this.read('projections', () => readProjectionVersions(sources.db)),
      this.read('event_store', () => sources.eventStore.headPosition()),
      // The held count is known with Redis down; the queue's counts are not, which makes the source down.
      this.read('jobs', async () => {
        const depth = await sources.jobs.queueDepth();
        this.queueDepth.set({ state: 'held' }, depth.held);
        if (!depth.queue) throw new Error('the job queue cannot be read');
        return depth.queue;
      }),
    ]);
    if (head) this.head.set({ store: sources.store }, Number(head.prepare));
    if (versions) await this.setProjections(versions, head, sources);
    if (depth) for (const state of ['waiting', 'delayed', 'active'] as const) this.queueDepth.set({ state }, depth[state]);
  }

  private async setProjections(rows: readonly ProjectionVersionStatus[], head: GlobalPosition | null, sources: ScrapeSources): Promise<void> {
    for (const reading of await projectionReadings(rows, sources.projections, head, (after, upTo) => sources.eventStore.approximateEventsBetween(after, upTo))) {
      const labels = { projection: reading.projection, version: String(reading.version) };
      this.checkpoint.set(labels, reading.checkpoint);
      this.parked.set(labels, reading.parked);
      if (reading.lag !== null) this.lag.set(labels, reading.lag);
    }
    for (const row of rows) {
      if (row.rebuild && sources.projections.some((projection) => projection.name === row.name && projection.version === row.version)) {
        this.rebuilding.set({ projection: row.name, version: String(row.version) }, row.rebuild.eventsApplied);
      }
    }
  }

  private async read<T>(source: ScrapeSource, work: () => Promise<T>): Promise<T | null> {
    let timer: NodeJS.Timeout | undefined;
    try {
      const reading = work();
      reading.catch(() => undefined);
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${source} took longer than ${SCRAPE_SOURCE_TIMEOUT_MS} ms`)), SCRAPE_SOURCE_TIMEOUT_MS);
      });
      const value = await Promise.race([reading, timeout]);
      this.sourceUp.set({ source }, 1);
      return value;
    } catch {
      this.sourceUp.set({ source }, 0);
      this.scrapeErrors.inc({ source });
      return null;
    } finally {
      clearTimeout(timer);
    }
  }
}
