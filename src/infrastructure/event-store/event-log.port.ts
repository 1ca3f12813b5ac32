import { formatPosition, type GlobalPosition, type RecordedEvent } from '../../core/events.js';

/** A stored event as the store keeps it — never upcast — with its links in its stream's hash chain (decision 0044). */
export interface LoggedEvent extends RecordedEvent {
  /** The hash of the stream's previous event (32 zero bytes before the first); null: not chained (yet). */
  readonly previousHash: Buffer | null;
  readonly hash: Buffer | null;
}

/**
 * What an auditor reads of the event store: the whole log as stored, for checking its hash chain,
 * and one user's history, for taking it away. Beside the EventStore port, which the service
 * writes and reads through (and which upcasts).
 */
export interface EventLog {
  /** Whether `everyEvent` gives each stream's events one after the other (PostgreSQL walks the log stream by stream). */
  readonly streamsTogether: boolean;
  /** How many events the log holds; null where the store cannot tell without reading them all. */
  countEvents(): Promise<number | null>;
  /** Every event of the log, page by page; each stream's events in revision order. */
  everyEvent(pageSize?: number): AsyncIterable<LoggedEvent[]>;
  /**
   * Every event appended on behalf of `userId` (its metadata's `userId`), in the feed's order up to
   * and including `upTo`, as export lines (`exportLineOf`) of a page each, one per line.
   */
  exportPages(userId: string, upTo: GlobalPosition, pageSize?: number): AsyncIterable<string>;
  close(): Promise<void>;
}

/** One line of an export: the event as stored, where it stands in the feed and in its stream's chain. */
export interface ExportLine {
  readonly position: string;
  readonly stream: string;
  readonly revision: number;
  readonly id: string;
  readonly type: string;
  readonly data: unknown;
  readonly metadata: unknown;
  readonly occurredAt: string;
  readonly previousHash: string | null;
  readonly hash: string | null;
}

export function exportLineOf(event: LoggedEvent): ExportLine {
  return {
    position: formatPosition(event.position),
    stream: event.streamId,
    revision: Number(event.revision),
    id: event.id,
    type: event.type,
    data: event.data,
    metadata: event.metadata,
    occurredAt: event.metadata.occurredAt,
    previousHash: event.previousHash?.toString('hex') ?? null,
    hash: event.hash?.toString('hex') ?? null,
  };
}

export const EVENT_LOG = Symbol('EventLog');
