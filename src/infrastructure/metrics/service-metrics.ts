import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';
import type { JobAttemptObserver } from '../jobs/job.js';
import { ScrapeTimeGauges, type ScrapeSources } from './scrape-time-gauges.js';

/** Seconds: from a 5 ms read to a 10 s write that waited out read-your-writes. */
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Seconds: an append is a few milliseconds; its 5 s statement timeout is the far end. */
const APPEND_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5];
/** Seconds: a tag fan-out takes milliseconds, a first bank-link sync minutes. */
const JOB_BUCKETS = [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 900];

export type AppendOperation = 'append_to_stream' | 'append_to_new_streams';
export type AppendOutcome = 'appended' | 'conflict' | 'failed';

/**
 * The service's Prometheus registry: instruments observed as things happen (HTTP requests,
 * appends, job attempts) and gauges read at scrape time (projections, head, queue depth). One per
 * runtime, so that several runtimes in one process (tests) do not share series.
 */
export class ServiceMetrics {
  readonly registry = new Registry();
  private readonly httpRequests = new Counter({
    name: 'ledgerline_http_requests_total',
    help: 'HTTP requests answered, by method, route template (unmatched: no route) and status code',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });
  private readonly httpDuration = new Histogram({
    name: 'ledgerline_http_request_duration_seconds',
    help: 'Time from a request arriving to its response finishing, by method, route template and status code',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: HTTP_BUCKETS,
    registers: [this.registry],
  });
  private readonly appendDuration = new Histogram({
    name: 'ledgerline_event_store_append_duration_seconds',
    help: 'Event store appends, by operation and outcome (conflict: the expected revision did not hold)',
    labelNames: ['operation', 'outcome'] as const,
    buckets: APPEND_BUCKETS,
    registers: [this.registry],
  });
  private readonly eventsAppended = new Counter({
    name: 'ledgerline_events_appended_total',
    help: 'Events this process appended to the event store',
    registers: [this.registry],
  });
  private readonly jobDuration = new Histogram({
    name: 'ledgerline_job_duration_seconds',
    help: "Attempts at a job run by this process's runner, by job name and outcome",
    labelNames: ['job', 'outcome'] as const,
    buckets: JOB_BUCKETS,
    registers: [this.registry],
  });
  private readonly jobFailures = new Counter({
    name: 'ledgerline_job_failures_total',
    help: 'Attempts at a job that threw, by job name (each retry that fails counts again)',
    labelNames: ['job'] as const,
    registers: [this.registry],
  });
  private readonly gauges = new ScrapeTimeGauges(this.registry);
  /** An attempt at a job not named here is labelled `unknown`: a label value per stray name would never go away. */
  private knownJobs = new Set<string>();
  private refreshing: Promise<void> | null = null;

  constructor() {
    // process_* and nodejs_* keep their standard names: the dashboards operators already have read them.
    collectDefaultMetrics({ register: this.registry });
  }

  /** The job names a runner may report, once the definitions are known. */
  setJobNames(jobNames: readonly string[]): void {
    this.knownJobs = new Set(jobNames);
    for (const job of jobNames) {
      // Zero series from the start, so that rate() and absence alerts see every job.
      this.jobFailures.inc({ job }, 0);
    }
  }

  httpRequestFinished(labels: { method: string; route: string; status: string }, seconds: number): void {
    this.httpRequests.inc(labels);
    this.httpDuration.observe(labels, seconds);
  }

  appendFinished(operation: AppendOperation, outcome: AppendOutcome, seconds: number, eventsAppended: number): void {
    this.appendDuration.observe({ operation, outcome }, seconds);
    if (eventsAppended > 0) this.eventsAppended.inc(eventsAppended);
  }

  readonly jobAttempts: JobAttemptObserver = {
    attemptEnded: (name, outcome, seconds) => {
      const job = this.knownJobs.has(name) ? name : 'unknown';
      this.jobDuration.observe({ job, outcome }, seconds);
      if (outcome === 'failed') this.jobFailures.inc({ job });
    },
  };

  /** The text exposition: scrape-time gauges read first (null: still starting), each source on its own, none able to fail the scrape. */
  async scrape(sources: ScrapeSources | null): Promise<string> {
    if (sources) {
      // Scrapes that arrive together share one reading: the gauges are emptied and refilled by one at a time.
      this.refreshing ??= this.gauges.refresh(sources).finally(() => (this.refreshing = null));
      await this.refreshing;
    }
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
