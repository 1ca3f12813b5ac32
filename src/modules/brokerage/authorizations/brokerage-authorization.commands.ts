import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { foldOwnStream } from '../../../core/decider.js';
import type { EventStore } from '../../../infrastructure/event-store/event-store.port.js';
import { type CommandContext, type CommandOutcome, handleCommand } from '../../../infrastructure/event-store/handle-command.js';
import { EVENT_STORE } from '../../../infrastructure/runtime/tokens.js';
import { type BrokerageAuthorizationEvent, brokerageAuthorizationStreamId } from '../brokerage.events.js';
import { type BrokerageAuthorizationCommand, brokerageAuthorizationDecider, type BrokerageAuthorizationState } from './brokerage-authorization.decider.js';

type BrokerageAuthorizationOutcome = CommandOutcome<BrokerageAuthorizationEvent, BrokerageAuthorizationState>;

/** Any decision on one brokerage authorization's stream; `command` says which. */
export class ExecuteBrokerageAuthorizationCommand extends Command<BrokerageAuthorizationOutcome> {
  constructor(
    readonly authorizationUuid: string,
    readonly command: BrokerageAuthorizationCommand,
    readonly context: CommandContext,
  ) {
    super();
  }
}

@CommandHandler(ExecuteBrokerageAuthorizationCommand)
export class ExecuteBrokerageAuthorizationCommandHandler implements ICommandHandler<ExecuteBrokerageAuthorizationCommand> {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  execute({ authorizationUuid, command, context }: ExecuteBrokerageAuthorizationCommand): Promise<BrokerageAuthorizationOutcome> {
    return handleCommand(this.store, brokerageAuthorizationStreamId(authorizationUuid), brokerageAuthorizationDecider, command, context, 'Brokerage authorization');
  }
}

/** The authorization as this user's stream tells it (another user's is, to this user, absent). */
export async function readBrokerageAuthorization(store: EventStore, userId: string, authorizationUuid: string): Promise<BrokerageAuthorizationState> {
  return foldOwnStream(brokerageAuthorizationDecider, await store.readStream(brokerageAuthorizationStreamId(authorizationUuid)), userId);
}
