import type { RecordedEvent } from '../../core/events.js';

/**
 * The `$all` pages this process read lately, shared between its readers: every projection
 * runner walks the same feed from the same checkpoints, and without sharing each one reads and
 * parses every event again (a 100k-transaction sync was read seven times over).
 *
 * A read in flight is shared as it is. A full page is kept afterwards (at most `capacity` of
 * them, oldest out first): nothing can later appear inside it, since events become visible only
 * above every event already visible (decision 0001). A short page (the head) is not kept, as more
 * may follow it. Pages are handed out as they are: readers must not change the events.
 */
export class SharedFeedPages {
  private readonly pages = new Map<string, Promise<RecordedEvent[]>>();

  constructor(private readonly capacity: number) {}

  read(key: string, maxCount: number, load: () => Promise<RecordedEvent[]>): Promise<RecordedEvent[]> {
    const known = this.pages.get(key);
    if (known) return known;
    const page = load();
    this.pages.set(key, page);
    page.then(
      (events) => {
        if (events.length < maxCount) this.forget(key, page);
      },
      () => this.forget(key, page),
    );
    while (this.pages.size > this.capacity) this.pages.delete(this.pages.keys().next().value as string);
    return page;
  }

  private forget(key: string, page: Promise<RecordedEvent[]>): void {
    if (this.pages.get(key) === page) this.pages.delete(key);
  }
}
