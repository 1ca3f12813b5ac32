import { type AllStreamResolvedEvent, EventStoreDBClient, FORWARDS, START } from '@eventstore/db-client';
import { comparePositions, type GlobalPosition } from '../../core/events.js';
import { type EventLog, exportLineOf, type LoggedEvent } from './event-log.port.js';
import { toRecordedEvent } from './eventstoredb-event-store.js';
import { chainLinkOf } from './eventstoredb-metadata.js';

const PAGE = 1000;

/**
 * The log of an EventStoreDB event store: `$all` read forwards, streamed by the server. It has no
 * index by user, so an export reads the whole log and keeps one user's events (decision 0044).
 */
export class EventStoreDbEventLog implements EventLog {
  readonly streamsTogether = false;
  private readonly client: EventStoreDBClient;

  constructor(connectionString: string) {
    this.client = EventStoreDBClient.connectionString(connectionString);
  }

  async countEvents(): Promise<null> {
    return null;
  }

  async *everyEvent(pageSize = PAGE): AsyncIterable<LoggedEvent[]> {
    let page: LoggedEvent[] = [];
    for await (const event of this.all()) {
      page.push(event);
      if (page.length === pageSize) {
        yield page;
        page = [];
      }
    }
    if (page.length > 0) yield page;
  }

  async *exportPages(userId: string, upTo: GlobalPosition, pageSize = PAGE): AsyncIterable<string> {
    let lines: string[] = [];
    for await (const event of this.all()) {
      if (comparePositions(event.position, upTo) > 0) break;
      if (event.metadata.userId !== userId) continue;
      lines.push(JSON.stringify(exportLineOf(event)));
      if (lines.length === pageSize) {
        yield `${lines.join('\n')}\n`;
        lines = [];
      }
    }
    if (lines.length > 0) yield `${lines.join('\n')}\n`;
  }

  private async *all(): AsyncIterable<LoggedEvent> {
    for await (const resolved of this.client.readAll({ direction: FORWARDS, fromPosition: START })) {
      const event = loggedEventOf(resolved);
      if (event) yield event;
    }
  }

  async close(): Promise<void> {
    await this.client.dispose();
  }
}

function loggedEventOf(resolved: AllStreamResolvedEvent): LoggedEvent | null {
  if (!resolved.event?.position) return null;
  const recorded = toRecordedEvent(resolved);
  if (!recorded) return null;
  const link = chainLinkOf((resolved.event.metadata ?? {}) as Record<string, unknown>);
  return { ...recorded, previousHash: link?.previousHash ?? null, hash: link?.hash ?? null };
}
