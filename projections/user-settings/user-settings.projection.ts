import { unhandled } from '../../src/core/exhaustive.js';
import type { RecordedEvent } from '../../src/core/events.js';
import type { ProjectionDefinition } from '../../src/infrastructure/projections/projection.js';
import { USER_SETTINGS_EVENT_TYPES, USER_SETTINGS_STREAM_PREFIX, type UserSettingsEvent } from '../../src/modules/settings/user-settings.js';
import { createUserSettingsTable } from './user-settings.table.js';

/** `user-settings`: each user's settings (time zone), what `GET /me` shows and `/spending` counts days by. */
export const userSettingsProjection: ProjectionDefinition = {
  name: 'user-settings',
  version: 1,
  tables: ['user_settings'],
  eventTypes: USER_SETTINGS_EVENT_TYPES,
  createTables: createUserSettingsTable,
  async apply(trx, events) {
    for (const recorded of events as readonly RecordedEvent<UserSettingsEvent>[]) {
      if (!recorded.streamId.startsWith(USER_SETTINGS_STREAM_PREFIX)) continue;
      const event = { type: recorded.type, data: recorded.data } as UserSettingsEvent;
      const revision = Number(recorded.revision);
      const at = new Date(recorded.metadata.occurredAt);
      switch (event.type) {
        case 'UserTimeZoneSet':
          await trx
            .insertInto('user_settings')
            .values({ user_id: recorded.metadata.userId, time_zone: event.data.timeZone, updated_at: at, revision })
            .onConflict((conflict) =>
              conflict
                .column('user_id')
                .doUpdateSet({ time_zone: event.data.timeZone, updated_at: at, revision })
                .where('user_settings.revision', '<', revision),
            )
            .execute();
          break;
        default:
          unhandled(event.type);
      }
    }
  },
};
