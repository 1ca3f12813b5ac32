import { unhandled } from '../../core/exhaustive.js';
import type { Decider } from '../../core/decider.js';
import { DomainRuleError, NotFoundError } from '../../core/errors.js';
import { evolveTag, initialTagState, type TagColor, type TagEvent, type TagState } from './tag.js';

/** A sparse edit of a tag: only what is present is changed. */
export interface TagChanges {
  readonly name?: string;
  readonly color?: TagColor;
  readonly archived?: boolean;
}

export type TagCommand =
  | { type: 'CreateTag'; tagId: string; name: string; color: TagColor }
  | { type: 'EditTag'; tagId: string; changes: TagChanges }
  | { type: 'DeleteTag'; tagId: string };

export function decideTag(command: TagCommand, state: TagState): TagEvent[] {
  switch (command.type) {
    case 'CreateTag':
      if (state.status !== 'absent') throw new DomainRuleError('TAG_EXISTS', 'A tag with this id already exists.', 409);
      return [{ type: 'TagCreated', data: { tagId: command.tagId, name: command.name, color: command.color } }];
    case 'EditTag': {
      if (state.status !== 'live') throw new NotFoundError('Tag');
      const { tagId, changes } = command;
      const events: TagEvent[] = [];
      if (changes.name !== undefined && changes.name !== state.name) events.push({ type: 'TagRenamed', data: { tagId, name: changes.name } });
      if (changes.color !== undefined && changes.color !== state.color) events.push({ type: 'TagRecolored', data: { tagId, color: changes.color } });
      if (changes.archived === true && !state.archived) events.push({ type: 'TagArchived', data: { tagId } });
      if (changes.archived === false && state.archived) events.push({ type: 'TagUnarchived', data: { tagId } });
      return events;
    }
    case 'DeleteTag':
      // Deleting again is a success that changes nothing; a tag that never was is a 404.
      if (state.status === 'absent') throw new NotFoundError('Tag');
      return state.status === 'deleted' ? [] : [{ type: 'TagDeleted', data: { tagId: command.tagId } }];
    default: {
      unhandled(command);
      throw new Error(`Unknown tag command ${(command as { type: string }).type}`);
    }
  }
}

export const tagDecider: Decider<TagCommand, TagEvent, TagState> = {
  decide: decideTag,
  evolve: evolveTag,
  initialState: initialTagState,
};
