import type { Logger } from 'pino';
import { WriteNotVisibleError } from '../../core/errors.js';
import { type DomainEvent, formatPosition, type GlobalPosition } from '../../core/events.js';
import { inlineKey, type ProjectionDefinition, projectionChangedBy } from '../projections/projection.js';
import type { CheckpointWatch } from '../projections/checkpoint-watch.js';

/**
 * A write's response, and so the writer's next read, waits until the read models it reads have
 * its events. A write those models cannot show is never answered as missing: it is a
 * `WriteNotVisibleError` (503), while the events stay stored (docs/decisions/0006).
 */
export class ReadYourWrites {
  private readonly projections: ReadonlyMap<string, Pick<ProjectionDefinition, 'name' | 'version' | 'eventTypes' | 'changedBy'>>;

  constructor(
    private readonly watch: CheckpointWatch,
    private readonly timeoutMs: number,
    private readonly log: Logger,
    projections: readonly ProjectionDefinition[] = [],
  ) {
    this.projections = new Map(projections.map((projection) => [projection.name, projection]));
  }

  /**
   * Waits for `readModels` to reach `position`; given the write's `events`, only for those of them
   * the events change (a read model that reads none of them already shows everything the write did).
   */
  async waitFor(position: GlobalPosition | null, readModels: readonly string[], events?: readonly DomainEvent[], appliedInline: readonly string[] = []): Promise<void> {
    if (position === null) return;
    if (events) readModels = readModels.filter((name) => this.changes(name, events));
    // Projected in the append's own transaction: committed with it, nothing to wait for.
    if (appliedInline.length > 0) readModels = readModels.filter((name) => !this.appliedInline(name, appliedInline));
    if (readModels.length === 0) return;
    if (!this.watch.hasReached(position, readModels)) {
      const reached = await this.watch.waitFor(position, this.timeoutMs, readModels);
      if (!reached) {
        const behind = readModels.find((name) => !this.watch.hasReached(position, [name])) ?? readModels[0];
        this.log.warn({ position: formatPosition(position), readModel: behind, timeoutMs: this.timeoutMs }, 'a read model did not reach a write in time');
        throw new WriteNotVisibleError('lagging', behind);
      }
    }
    const parkedBy = this.watch.parkedWithin(position, readModels);
    if (parkedBy) throw new WriteNotVisibleError('parked', parkedBy);
  }

  private appliedInline(readModel: string, keys: readonly string[]): boolean {
    const projection = this.projections.get(readModel);
    return projection !== undefined && keys.includes(inlineKey(projection));
  }

  private changes(readModel: string, events: readonly DomainEvent[]): boolean {
    const projection = this.projections.get(readModel);
    return !projection || events.some((event) => projectionChangedBy(projection, event));
  }
}
