import { ValidationFailedError } from '../../core/errors.js';
import { specification } from '../../core/decider-specification.test-support.js';
import { userSettingsDecider } from './user-settings.decider.js';

const spec = specification(userSettingsDecider);

describe('user settings decider', () => {
  it('records a new time zone in its canonical spelling', () => {
    spec.given([]).when({ type: 'SetTimeZone', timeZone: 'europe/lisbon' }).then([{ type: 'UserTimeZoneSet', data: { timeZone: 'Europe/Lisbon' } }]);
    spec.given([]).when({ type: 'SetTimeZone', timeZone: 'US/Eastern' }).then([{ type: 'UserTimeZoneSet', data: { timeZone: 'America/New_York' } }]);
  });

  it('records nothing when the zone is the one the user already has (UTC until set)', () => {
    spec.given([]).when({ type: 'SetTimeZone', timeZone: 'UTC' }).then([]);
    spec.given([{ type: 'UserTimeZoneSet', data: { timeZone: 'Asia/Tokyo' } }]).when({ type: 'SetTimeZone', timeZone: 'Asia/Tokyo' }).then([]);
    spec.given([{ type: 'UserTimeZoneSet', data: { timeZone: 'Asia/Tokyo' } }]).when({ type: 'SetTimeZone', timeZone: 'UTC' }).then([{ type: 'UserTimeZoneSet', data: { timeZone: 'UTC' } }]);
  });

  it('refuses a name that is not an IANA time zone, at ["timeZone"]', () => {
    spec
      .given([])
      .when({ type: 'SetTimeZone', timeZone: 'Mars/Olympus_Mons' })
      .thenThrows((error) => expect((error as ValidationFailedError).issues).toEqual([{ code: 'invalid_string', message: expect.any(String), path: ['timeZone'] }]));
  });
});
