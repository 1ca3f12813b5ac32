import { unhandled } from '../../core/exhaustive.js';
import type { DomainEvent } from '../../core/events.js';
import { DomainRuleError } from '../../core/errors.js';
import { nameBasedId } from '../../core/ids.js';
import { tagNameKey } from './tag.js';

/**
 * A tag name is held by a stream of its own per (user, case-folded name). Claiming appends at the
 * revision read, so of two concurrent claims the store itself refuses the second: the loser reads
 * the claim again and answers TAG_NAME_TAKEN (decision 0010).
 */
export type TagNameClaimed = DomainEvent<'TagNameClaimed', { tagId: string; name: string }>;
export type TagNameReleased = DomainEvent<'TagNameReleased', { tagId: string }>;
export type TagNameEvent = TagNameClaimed | TagNameReleased;

export interface TagNameState {
  readonly holder: string | null;
}

export type TagNameCommand =
  /** `holderStillHoldsIt`: whether the tag holding the claim (if another) still has this name. */
  | { type: 'ClaimTagName'; tagId: string; name: string; holderStillHoldsIt: boolean }
  | { type: 'ReleaseTagName'; tagId: string };

export const initialTagNameState = (): TagNameState => ({ holder: null });

export function evolveTagName(state: TagNameState, event: TagNameEvent): TagNameState {
  switch (event.type) {
    case 'TagNameClaimed':
      return { holder: event.data.tagId };
    case 'TagNameReleased':
      return state.holder === event.data.tagId ? { holder: null } : state;
    default: {
      unhandled(event);
      return state;
    }
  }
}

export function decideTagName(command: TagNameCommand, state: TagNameState): TagNameEvent[] {
  switch (command.type) {
    case 'ClaimTagName':
      if (state.holder === command.tagId) return [];
      // A claim whose tag was deleted, renamed away or never created (a crash between the two
      // appends) holds nothing: it is taken over rather than blocking the name for ever.
      if (state.holder !== null && command.holderStillHoldsIt) throw new DomainRuleError('TAG_NAME_TAKEN', `You already have a tag named "${command.name}" (names are compared ignoring case).`, 409);
      return [{ type: 'TagNameClaimed', data: { tagId: command.tagId, name: command.name } }];
    case 'ReleaseTagName':
      return state.holder === command.tagId ? [{ type: 'TagNameReleased', data: { tagId: command.tagId } }] : [];
    default: {
      unhandled(command);
      throw new Error(`Unknown tag name command ${(command as { type: string }).type}`);
    }
  }
}

const TAG_NAME_NAMESPACE = '6f1c1d52-52f7-4c61-9a57-0c2f1f3a9b10';

export function tagNameStreamId(userId: string, name: string): string {
  return `tag-name-${nameBasedId(TAG_NAME_NAMESPACE, `${userId}\n${tagNameKey(name)}`)}`;
}
