import type { RecordedEvent } from '../../core/events.js';
import { SharedFeedPages } from './shared-feed-pages.js';

const events = (count: number) => Array.from({ length: count }, (_, i) => ({ type: `E${i}` }) as unknown as RecordedEvent);

describe('shared feed pages', () => {
  it('shares a read in flight, keeps a full page for later readers and reads a short one again', async () => {
    const pages = new SharedFeedPages(4);
    let loads = 0;
    const load = (count: number) => async () => {
      loads += 1;
      return events(count);
    };
    const [first, second] = await Promise.all([pages.read('full', 2, load(2)), pages.read('full', 2, load(2))]);
    expect(second).toBe(first);
    expect(await pages.read('full', 2, load(2))).toBe(first);
    expect(loads).toBe(1);

    await pages.read('head', 2, load(1));
    await pages.read('head', 2, load(1));
    expect(loads).toBe(3);
  });

  it('forgets a failed read and keeps at most its capacity of pages, oldest out first', async () => {
    const pages = new SharedFeedPages(2);
    await expect(pages.read('failing', 1, () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    expect(await pages.read('failing', 1, async () => events(1))).toHaveLength(1);
    let loads = 0;
    const load = async () => {
      loads += 1;
      return events(1);
    };
    await pages.read('a', 1, load);
    await pages.read('b', 1, load);
    await pages.read('c', 1, load);
    await pages.read('c', 1, load);
    await pages.read('b', 1, load);
    expect(loads).toBe(3);
    await pages.read('failing', 1, load);
    expect(loads).toBe(4);
  });
});
