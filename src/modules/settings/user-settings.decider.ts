import type { Decider } from '../../core/decider.js';
import { invalid } from '../../core/errors.js';
import { canonicalTimeZone } from '../../core/time-zone.js';
import { evolveUserSettings, initialUserSettingsState, type UserSettingsEvent, type UserSettingsState } from './user-settings.js';

export type UserSettingsCommand = { type: 'SetTimeZone'; timeZone: string };

/** Setting the zone the user already has records nothing. */
export function decideUserSettings(command: UserSettingsCommand, state: UserSettingsState): UserSettingsEvent[] {
  switch (command.type) {
    case 'SetTimeZone': {
      const timeZone = canonicalTimeZone(command.timeZone);
      if (timeZone === null) throw invalid(['timeZone'], 'timeZone must be an IANA time zone name such as Europe/Lisbon or UTC', 'invalid_string');
      return timeZone === state.timeZone ? [] : [{ type: 'UserTimeZoneSet', data: { timeZone } }];
    }
  }
}

export const userSettingsDecider: Decider<UserSettingsCommand, UserSettingsEvent, UserSettingsState> = {
  decide: decideUserSettings,
  evolve: evolveUserSettings,
  initialState: initialUserSettingsState,
};
