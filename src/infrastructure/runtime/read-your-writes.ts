import type { Logger } from 'pino';
import { formatPosition, type GlobalPosition } from '../../core/events.js';
import type { CheckpointWatch } from '../projections/checkpoint-watch.js';

/** A write's response, and so the writer's next read, waits until every read model has its events. */
export class ReadYourWrites {
  constructor(
    private readonly watch: CheckpointWatch,
    private readonly timeoutMs: number,
    private readonly log: Logger,
  ) {}

  async waitFor(position: GlobalPosition | null): Promise<void> {
    if (position === null || this.watch.hasReached(position)) return;
    const reached = await this.watch.waitFor(position, this.timeoutMs);
    if (!reached) this.log.warn({ position: formatPosition(position), timeoutMs: this.timeoutMs }, 'read models did not reach a write in time; answering from what they have');
  }
}
