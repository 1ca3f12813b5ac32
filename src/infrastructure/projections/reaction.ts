import type { Kysely } from 'kysely';
import type { DomainEvent, RecordedEvent } from '../../core/events.js';
import type { Database } from '../database/schema.js';
import { type JobCause, type OutboxJob, writeJobs } from '../jobs/job-outbox.js';
import type { ProjectionDefinition } from './projection.js';

export interface ReactionDefinition {
  readonly name: string;
  readonly version: number;
  readonly eventTypes: readonly string[];
  /** Whether an event of its types asks for anything (default: every one does). */
  readonly reactsTo?: (event: DomainEvent) => boolean;
  /** The jobs a batch of its events asks for (`db`: the batch's transaction, to look up what the events do not say); written to the outbox with the checkpoint's move past them. */
  jobsFor(events: readonly RecordedEvent[], db: Kysely<Database>): OutboxJob[] | Promise<OutboxJob[]>;
}

/**
 * A reaction (decision 0038) is a side effect of events — a job they ask for — recorded by a
 * checkpointed consumer of the feed, in the same transaction as its checkpoint's move past them:
 * exactly once, whatever crashes, and never from inside the request that appended them. The
 * daemon runs it as it runs a read model; it starts at the head of the feed, never replaying.
 */
export function reaction(definition: ReactionDefinition): ProjectionDefinition {
  return {
    name: definition.name,
    version: definition.version,
    kind: 'reaction',
    tables: [],
    eventTypes: definition.eventTypes,
    ...(definition.reactsTo ? { changedBy: definition.reactsTo } : {}),
    async createTables() {
      // Its "rows" are jobs in the outbox.
    },
    async apply(trx, events) {
      const asking = definition.reactsTo ? events.filter(definition.reactsTo) : events;
      if (asking.length > 0) await writeJobs(trx, await definition.jobsFor(asking, trx));
    },
  };
}

/** Why a reaction's job was asked for: the event, and the request that appended it. */
export function causeOf(event: RecordedEvent): JobCause {
  return { eventId: event.id, eventType: event.type, requestId: event.metadata.requestId, correlationId: event.metadata.correlationId };
}

/** The trace a job carries so the events it appends share the request's correlation and name the event as their cause. */
export function traceOf(event: RecordedEvent): { correlationId: string; causationId: string } {
  return { correlationId: event.metadata.correlationId, causationId: event.id };
}
