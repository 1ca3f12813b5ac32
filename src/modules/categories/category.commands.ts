import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import type { EventStore } from '../../infrastructure/event-store/event-store.port.js';
import { type CommandContext, type CommandOutcome, handleCommand } from '../../infrastructure/event-store/handle-command.js';
import { EVENT_STORE } from '../../infrastructure/runtime/tokens.js';
import { type CategoryTaxonomyEvent, type CategoryTaxonomyState, categoryTaxonomyStreamId } from './category-taxonomy.js';
import { type CategoryTaxonomyCommand, categoryTaxonomyDecider } from './category-taxonomy.decider.js';

type CategoryTaxonomyOutcome = CommandOutcome<CategoryTaxonomyEvent, CategoryTaxonomyState>;

/** Any decision on the user's category taxonomy (its groups and categories); `command` says which. */
export class ExecuteCategoryTaxonomyCommand extends Command<CategoryTaxonomyOutcome> {
  constructor(
    readonly command: CategoryTaxonomyCommand,
    readonly context: CommandContext,
  ) {
    super();
  }
}

@CommandHandler(ExecuteCategoryTaxonomyCommand)
export class ExecuteCategoryTaxonomyCommandHandler implements ICommandHandler<ExecuteCategoryTaxonomyCommand> {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  execute({ command, context }: ExecuteCategoryTaxonomyCommand): Promise<CategoryTaxonomyOutcome> {
    return handleCommand(this.store, categoryTaxonomyStreamId(context.userId), categoryTaxonomyDecider, command, context, 'Category');
  }
}
