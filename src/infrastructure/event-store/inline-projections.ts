import type pg from 'pg';
import type { RecordedEvent } from '../../core/events.js';
import { inlineKey, type ProjectionDefinition } from '../projections/projection.js';

/** How often the versions not yet live are looked up again, until they are. */
const LIVE_REFRESH_MS = 2_000;

/**
 * This release's inline read models (decision 0033) and which of them are live — their version
 * caught up with the feed, not superseded. Only a live version is projected in the append's own
 * transaction; one still building is the daemon's alone, so nothing reaches it out of order.
 */
export class InlineProjections {
  private live = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private refreshing: Promise<void> | null = null;

  constructor(
    private readonly pool: pg.Pool,
    readonly projections: readonly ProjectionDefinition[],
  ) {}

  /** Reads which versions are live, then keeps looking while some are not. */
  async start(): Promise<void> {
    await this.refresh();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** The live inline projections that read any of `events`. */
  for(events: readonly { type: string }[]): ProjectionDefinition[] {
    if (this.live.size === 0) return [];
    return this.projections.filter((projection) => this.live.has(inlineKey(projection)) && events.some((event) => projection.eventTypes.includes(event.type)));
  }

  /** Events as an inline projection sees them: stored in this transaction, their global position not known until it commits. */
  static recorded(streamId: string, events: readonly { id: string; type: string; data: unknown; metadata: RecordedEvent['metadata'] }[], firstRevision: bigint): RecordedEvent[] {
    return events.map((event, index) => ({ ...event, streamId, revision: firstRevision + BigInt(index), position: { commit: 0n, prepare: 0n } }));
  }

  refresh(): Promise<void> {
    if (this.projections.length === 0) return Promise.resolve();
    this.refreshing ??= this.pool
      .query<{ key: string }>(
        `SELECT name || '@' || version AS key FROM projection_versions
          WHERE caught_up_at IS NOT NULL AND superseded_at IS NULL AND name || '@' || version = ANY($1::text[])`,
        [this.projections.map(inlineKey)],
      )
      .then(({ rows }) => {
        this.live = new Set(rows.map((row) => row.key));
      })
      .catch(() => undefined)
      .finally(() => {
        this.refreshing = null;
        if (this.live.size < this.projections.length && !this.timer) {
          this.timer = setTimeout(() => {
            this.timer = null;
            void this.refresh();
          }, LIVE_REFRESH_MS);
          this.timer.unref();
        }
      });
    return this.refreshing;
  }
}
