import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { EventStore } from '../../infrastructure/event-store/event-store.port.js';
import { type CommandContext, type CommandOutcome, handleCommand } from '../../infrastructure/event-store/handle-command.js';
import type { Kysely } from 'kysely';
import { DomainRuleError } from '../../core/errors.js';
import type { Database } from '../../infrastructure/database/schema.js';
import { DATABASE, EVENT_STORE } from '../../infrastructure/runtime/tokens.js';
import { type IfMatch } from '../../infrastructure/http/entity-tags.js';
import { accountUnchangedSince, findLiveAccount } from './account.queries.js';
import type { AccountEvent, AccountState, AccountType } from './account.js';
import { accountStreamId } from './account.js';
import { type AccountCommand, accountDecider } from './account.decider.js';

type AccountOutcome = CommandOutcome<AccountEvent, AccountState>;

/** Any decision on one account's stream; `command` says which. */
export class ExecuteAccountCommand extends Command<AccountOutcome> {
  constructor(
    readonly accountId: string,
    readonly command: AccountCommand,
    readonly context: CommandContext,
    /** The client's If-Match: the change goes ahead only on the account as the client saw it. */
    readonly ifMatch?: IfMatch,
  ) {
    super();
  }
}

const NOT_MANUAL = {
  UpdateManualBalance: 'Only a manual account balance can be set by hand; this one is synced from its provider.',
  DeleteAccount: 'A linked account is disconnected through its connection (AccountRemoval), not deleted on its own stream.',
};

/**
 * A linked account has no stream of its own (its item's stream is its history), so the read model
 * tells the handler that a balance set by hand would be overwritten by the provider's, and that
 * the account is disconnected through its connection's stream (AccountRemoval), not deleted here.
 */
@CommandHandler(ExecuteAccountCommand)
export class ExecuteAccountCommandHandler implements ICommandHandler<ExecuteAccountCommand> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(DATABASE) private readonly db: Kysely<Database>,
  ) {}

  async execute({ accountId, command, context, ifMatch }: ExecuteAccountCommand): Promise<AccountOutcome> {
    const guards = ifMatch === undefined ? [] : [await accountUnchangedSince(this.db, context.userId, accountId, ifMatch)];
    const options = { guards, db: this.db };
    if (command.type === 'UpdateManualBalance' || command.type === 'DeleteAccount') {
      const listed = await findLiveAccount(this.db, context.userId, accountId);
      if (listed && listed.source !== 'manual') throw new DomainRuleError('ACCOUNT_NOT_MANUAL', NOT_MANUAL[command.type]);
    }
    if (command.type === 'OverrideCreditLimit') {
      const listed = await findLiveAccount(this.db, context.userId, accountId);
      if (listed && listed.source !== 'manual') {
        const linked: AccountCommand = { type: 'OverrideLinkedCreditLimit', accountId, accountType: listed.type as AccountType, creditLimit: command.creditLimit };
        return handleCommand(this.store, accountStreamId(accountId), accountDecider, linked, context, 'Account', options);
      }
    }
    return handleCommand(this.store, accountStreamId(accountId), accountDecider, command, context, 'Account', options);
  }
}
