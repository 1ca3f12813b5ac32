import { Inject } from '@nestjs/common';
import { type IQueryHandler, Query, QueryHandler } from '@nestjs/cqrs';
import type { Kysely } from 'kysely';
import { NotFoundError } from '../../core/errors.js';
import { DEFAULT_TIME_ZONE } from '../../core/time-zone.js';
import type { Database } from '../../infrastructure/database/schema.js';
import { DATABASE } from '../../infrastructure/runtime/tokens.js';
import type { ProfileResponse } from './http/me.responses.js';

/** The read model behind a user's settings; named here so no module imports the projection. */
export const USER_SETTINGS_READ_MODEL = 'user-settings';

export class GetProfile extends Query<ProfileResponse> {
  constructor(readonly userId: string) {
    super();
  }
}

@QueryHandler(GetProfile)
export class GetProfileHandler implements IQueryHandler<GetProfile> {
  constructor(@Inject(DATABASE) private readonly db: Kysely<Database>) {}

  async execute({ userId }: GetProfile): Promise<ProfileResponse> {
    const user = await this.db.selectFrom('users').select(['id', 'email', 'name']).where('id', '=', userId).executeTakeFirst();
    if (!user) throw new NotFoundError('User');
    return { id: user.id, email: user.email, name: user.name, timeZone: await userTimeZone(this.db, userId) };
  }
}

/** The user's IANA time zone, UTC until they set one. */
export async function userTimeZone(db: Kysely<Database>, userId: string): Promise<string> {
  const row = await db.selectFrom('user_settings').select('time_zone').where('user_id', '=', userId).executeTakeFirst();
  return row?.time_zone ?? DEFAULT_TIME_ZONE;
}
