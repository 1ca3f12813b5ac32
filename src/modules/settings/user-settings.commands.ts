import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { GlobalPosition } from '../../core/events.js';
import type { EventStore } from '../../infrastructure/event-store/event-store.port.js';
import { type CommandContext, handleCommand } from '../../infrastructure/event-store/handle-command.js';
import { EVENT_STORE } from '../../infrastructure/runtime/tokens.js';
import { userSettingsStreamId } from './user-settings.js';
import { userSettingsDecider } from './user-settings.decider.js';

export class SetUserTimeZone extends Command<{ position: GlobalPosition | null }> {
  constructor(
    readonly timeZone: string,
    readonly context: CommandContext,
  ) {
    super();
  }
}

@CommandHandler(SetUserTimeZone)
export class SetUserTimeZoneHandler implements ICommandHandler<SetUserTimeZone> {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  execute({ timeZone, context }: SetUserTimeZone) {
    return handleCommand(this.store, userSettingsStreamId(context.userId), userSettingsDecider, { type: 'SetTimeZone', timeZone }, context, 'User settings');
  }
}
