import { Readable } from 'node:stream';
import type { EventLog } from '../../../infrastructure/event-store/event-log.port.js';
import type { EventStore } from '../../../infrastructure/event-store/event-store.port.js';

/**
 * One user's whole history as NDJSON (decision 0044): every event appended on their behalf up to
 * the feed's head when the export starts, in the feed's order, one line each. A byte stream that
 * reads its next page only once the reader has taken the last, so memory stays flat at any size;
 * the first page is read before it is handed back, so a failure to read at all is an error the
 * caller can still answer with a status.
 */
export async function userExport(log: EventLog, store: Pick<EventStore, 'headPosition'>, userId: string): Promise<Readable> {
  const upTo = await store.headPosition();
  const pages = log.exportPages(userId, upTo)[Symbol.asyncIterator]();
  const first = await pages.next();
  async function* lines(): AsyncGenerator<string> {
    if (first.done) return;
    yield first.value;
    for (let page = await pages.next(); !page.done; page = await pages.next()) yield page.value;
  }
  return Readable.from(lines(), { objectMode: false });
}
