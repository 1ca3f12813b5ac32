import { Inject, Injectable } from '@nestjs/common';
import { type Command, CommandBus } from '@nestjs/cqrs';
import type { DomainEvent, GlobalPosition } from '../../core/events.js';
import type { ReadYourWrites } from './read-your-writes.js';
import { READ_YOUR_WRITES } from './tokens.js';

/**
 * What HTTP writes go through: the command bus, and then read-your-writes for the read models the
 * response (and the writer's next read) is built from — only those. Commands return the position
 * of their last event, and those built on `handleCommand` the events and the read models their
 * append projected inline, so that only the read models the events change, and that do not show
 * them already, are waited for.
 */
@Injectable()
export class ConsistentCommandBus {
  constructor(
    private readonly commands: CommandBus,
    @Inject(READ_YOUR_WRITES) private readonly readYourWrites: ReadYourWrites,
  ) {}

  async execute<Outcome extends { position: GlobalPosition | null; events?: readonly DomainEvent[]; appliedInline?: readonly string[] }>(
    command: Command<Outcome>,
    readModels: readonly string[],
  ): Promise<Outcome> {
    const outcome = await this.commands.execute(command);
    await this.readYourWrites.waitFor(outcome.position, readModels, outcome.events, outcome.appliedInline);
    return outcome;
  }
}
