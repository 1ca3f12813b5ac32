import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { EventStore } from '../../../infrastructure/event-store/event-store.port.js';
import { type CommandContext, type CommandOutcome, handleCommand } from '../../../infrastructure/event-store/handle-command.js';
import { EVENT_STORE } from '../../../infrastructure/runtime/tokens.js';
import { type LinkItemEvent, type LinkItemState, linkItemStreamId } from './link-item.js';
import { type LinkItemCommand, linkItemDecider } from './link-item.decider.js';

type LinkItemOutcome = CommandOutcome<LinkItemEvent, LinkItemState>;

/** Any decision on one link item's stream; `command` says which. */
export class ExecuteLinkItemCommand extends Command<LinkItemOutcome> {
  constructor(
    readonly linkItemUuid: string,
    readonly command: LinkItemCommand,
    readonly context: CommandContext,
  ) {
    super();
  }
}

@CommandHandler(ExecuteLinkItemCommand)
export class ExecuteLinkItemCommandHandler implements ICommandHandler<ExecuteLinkItemCommand> {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  execute({ linkItemUuid, command, context }: ExecuteLinkItemCommand): Promise<LinkItemOutcome> {
    return handleCommand(this.store, linkItemStreamId(linkItemUuid), linkItemDecider, command, context, 'Link item');
  }
}
