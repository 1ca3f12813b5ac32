import type { Logger } from 'pino';
import { WriteNotVisibleError } from '../../core/errors.js';
import { formatPosition, type GlobalPosition } from '../../core/events.js';
import type { CheckpointWatch } from '../projections/checkpoint-watch.js';

/**
 * A write's response, and so the writer's next read, waits until the read models it reads have
 * its events. A write those models cannot show is never answered as missing: it is a
 * `WriteNotVisibleError` (503), while the events stay stored (docs/decisions/0006).
 */
export class ReadYourWrites {
  constructor(
    private readonly watch: CheckpointWatch,
    private readonly timeoutMs: number,
    private readonly log: Logger,
  ) {}

  async waitFor(position: GlobalPosition | null, readModels: readonly string[]): Promise<void> {
    if (position === null) return;
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
}
