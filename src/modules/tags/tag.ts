import { unhandled } from '../../core/exhaustive.js';
import type { DomainEvent } from '../../core/events.js';

export const TAG_COLORS = ['red', 'orange', 'amber', 'yellow', 'lime', 'green', 'teal', 'cyan', 'blue', 'indigo', 'violet', 'purple', 'pink', 'rose', 'slate', 'stone'] as const;
export type TagColor = (typeof TAG_COLORS)[number];
export const TAG_NAME_MAX_LENGTH = 50;

export type TagCreated = DomainEvent<'TagCreated', { tagId: string; name: string; color: TagColor }>;
export type TagRenamed = DomainEvent<'TagRenamed', { tagId: string; name: string }>;
export type TagRecolored = DomainEvent<'TagRecolored', { tagId: string; color: TagColor }>;
export type TagArchived = DomainEvent<'TagArchived', { tagId: string }>;
export type TagUnarchived = DomainEvent<'TagUnarchived', { tagId: string }>;
export type TagDeleted = DomainEvent<'TagDeleted', { tagId: string }>;

export type TagEvent = TagCreated | TagRenamed | TagRecolored | TagArchived | TagUnarchived | TagDeleted;
export const TAG_EVENT_TYPES: ReadonlyArray<TagEvent['type']> = ['TagCreated', 'TagRenamed', 'TagRecolored', 'TagArchived', 'TagUnarchived', 'TagDeleted'];

export interface TagState {
  readonly status: 'absent' | 'live' | 'deleted';
  readonly name: string | null;
  readonly color: TagColor | null;
  readonly archived: boolean;
}

export const initialTagState = (): TagState => ({ status: 'absent', name: null, color: null, archived: false });

export function evolveTag(state: TagState, event: TagEvent): TagState {
  switch (event.type) {
    case 'TagCreated':
      return { status: 'live', name: event.data.name, color: event.data.color, archived: false };
    case 'TagRenamed':
      return { ...state, name: event.data.name };
    case 'TagRecolored':
      return { ...state, color: event.data.color };
    case 'TagArchived':
      return { ...state, archived: true };
    case 'TagUnarchived':
      return { ...state, archived: false };
    case 'TagDeleted':
      return { ...state, status: 'deleted' };
    default: {
      unhandled(event);
      return state;
    }
  }
}

/**
 * How a name is stored: surrounding whitespace trimmed, Unicode NFC (so "é" typed two ways is
 * one name). Inner spaces and case are the user's.
 */
export function tagNameOf(input: string): string {
  return input.trim().normalize('NFC');
}

/** What uniqueness compares: the stored name, case folded. */
export function tagNameKey(name: string): string {
  return tagNameOf(name).toLowerCase();
}

export const TAG_STREAM_PREFIX = 'tag-';

export function tagStreamId(tagId: string): string {
  return `${TAG_STREAM_PREFIX}${tagId}`;
}
