import { Inject } from '@nestjs/common';
import { Command, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { foldEvents } from '../../core/decider.js';
import type { GlobalPosition } from '../../core/events.js';
import { NotFoundError } from '../../core/errors.js';
import type { EventStore } from '../../infrastructure/event-store/event-store.port.js';
import { type CommandContext, handleCommand } from '../../infrastructure/event-store/handle-command.js';
import { EVENT_STORE } from '../../infrastructure/runtime/tokens.js';
import { type TagColor, type TagEvent, tagNameKey, tagStreamId } from './tag.js';
import { type TagChanges, tagDecider } from './tag.decider.js';
import { claimTagName, releaseTagName } from './tag-name-claims.js';

export interface TagOutcome {
  readonly position: GlobalPosition | null;
}

export class CreateTag extends Command<TagOutcome> {
  constructor(
    readonly tagId: string,
    readonly name: string,
    readonly color: TagColor,
    readonly context: CommandContext,
  ) {
    super();
  }
}

export class EditTag extends Command<TagOutcome> {
  constructor(
    readonly tagId: string,
    readonly changes: TagChanges,
    readonly context: CommandContext,
  ) {
    super();
  }
}

export class DeleteTag extends Command<TagOutcome> {
  constructor(
    readonly tagId: string,
    readonly context: CommandContext,
  ) {
    super();
  }
}

/** The name is claimed on its own stream first, so two tags can never both hold it. */
@CommandHandler(CreateTag)
export class CreateTagHandler implements ICommandHandler<CreateTag> {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  async execute({ tagId, name, color, context }: CreateTag): Promise<TagOutcome> {
    await claimTagName(this.store, tagId, name, context);
    return handleCommand(this.store, tagStreamId(tagId), tagDecider, { type: 'CreateTag', tagId, name, color }, context, 'Tag');
  }
}

/** A rename claims the new name before the tag takes it, and gives the old one back after. */
@CommandHandler(EditTag)
export class EditTagHandler implements ICommandHandler<EditTag> {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  async execute({ tagId, changes, context }: EditTag): Promise<TagOutcome> {
    const before = await currentTag(this.store, tagId, context.userId);
    if (changes.name !== undefined && tagNameKey(changes.name) !== tagNameKey(before.name)) await claimTagName(this.store, tagId, changes.name, context);
    const outcome = await handleCommand(this.store, tagStreamId(tagId), tagDecider, { type: 'EditTag', tagId, changes }, context, 'Tag');
    if (changes.name !== undefined && tagNameKey(changes.name) !== tagNameKey(before.name)) await releaseTagName(this.store, tagId, before.name, context);
    return outcome;
  }
}

/**
 * TagDeleted on the tag's stream, then the fan-out job that takes the tag off each transaction.
 * Deleting again enqueues the job again (same job id): a fan-out lost with a crashed process is
 * picked up, and one that finished finds nothing left to do.
 */
@CommandHandler(DeleteTag)
export class DeleteTagHandler implements ICommandHandler<DeleteTag> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
  ) {}

  async execute({ tagId, context }: DeleteTag): Promise<TagOutcome> {
    const outcome = await handleCommand(this.store, tagStreamId(tagId), tagDecider, { type: 'DeleteTag', tagId }, context, 'Tag');
    const deleted = outcome.events.length > 0 ? await currentTag(this.store, tagId, context.userId, true) : null;
    if (deleted) await releaseTagName(this.store, tagId, deleted.name, context);
    return outcome;
  }
}

async function currentTag(store: EventStore, tagId: string, userId: string, deletedToo = false): Promise<{ name: string }> {
  const history = await store.readStream(tagStreamId(tagId));
  if (history.length === 0 || history[0].metadata.userId !== userId) throw new NotFoundError('Tag');
  const state = foldEvents(tagDecider, history as unknown as TagEvent[]);
  if ((state.status !== 'live' && !(deletedToo && state.status === 'deleted')) || state.name === null) throw new NotFoundError('Tag');
  return { name: state.name };
}
