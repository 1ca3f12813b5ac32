import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { EventStore } from '../../infrastructure/event-store/event-store.port.js';
import { type CommandContext, type CommandOutcome, handleCommand } from '../../infrastructure/event-store/handle-command.js';
import { EVENT_STORE } from '../../infrastructure/runtime/tokens.js';
import type { AccountEvent, AccountState } from './account.js';
import { accountStreamId } from './account.js';
import { type AccountCommand, accountDecider } from './account.decider.js';

type AccountOutcome = CommandOutcome<AccountEvent, AccountState>;

/** Any decision on one account's stream; `command` says which. */
export class ExecuteAccountCommand extends Command<AccountOutcome> {
  constructor(
    readonly accountId: string,
    readonly command: AccountCommand,
    readonly context: CommandContext,
  ) {
    super();
  }
}

@CommandHandler(ExecuteAccountCommand)
export class ExecuteAccountCommandHandler implements ICommandHandler<ExecuteAccountCommand> {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  execute({ accountId, command, context }: ExecuteAccountCommand): Promise<AccountOutcome> {
    return handleCommand(this.store, accountStreamId(accountId), accountDecider, command, context, 'Account');
  }
}
