import { unhandled } from '../../core/exhaustive.js';
import type { DomainEvent } from '../../core/events.js';
import { DEFAULT_TIME_ZONE } from '../../core/time-zone.js';

/**
 * A user's preferences that change what the API answers (not who they are: that is identity,
 * decision 0004). `timeZone` is the canonical IANA name that decides which day is "today".
 */
export type UserTimeZoneSet = DomainEvent<'UserTimeZoneSet', { timeZone: string }>;

export type UserSettingsEvent = UserTimeZoneSet;
export const USER_SETTINGS_EVENT_TYPES: readonly UserSettingsEvent['type'][] = ['UserTimeZoneSet'];

export interface UserSettingsState {
  readonly timeZone: string;
}

export const initialUserSettingsState = (): UserSettingsState => ({ timeZone: DEFAULT_TIME_ZONE });

export function evolveUserSettings(state: UserSettingsState, event: UserSettingsEvent): UserSettingsState {
  switch (event.type) {
    case 'UserTimeZoneSet':
      return { ...state, timeZone: event.data.timeZone };
    default: {
      unhandled(event.type);
      return state;
    }
  }
}

export const USER_SETTINGS_STREAM_PREFIX = 'user-settings-';

export function userSettingsStreamId(userId: string): string {
  return `${USER_SETTINGS_STREAM_PREFIX}${userId}`;
}
