import { Body, Controller, Get, Inject, Patch } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Clock } from '../../../core/clock.js';
import { CurrentPrincipal } from '../../../infrastructure/http/api-key.guard.js';
import { ApiErrors } from '../../../infrastructure/http/openapi-errors.js';
import { type RequestTrace, Trace, userCommandContext } from '../../../infrastructure/http/request-helpers.js';
import { ConsistentCommandBus } from '../../../infrastructure/runtime/consistent-command-bus.js';
import { CLOCK } from '../../../infrastructure/runtime/tokens.js';
import type { Principal } from '../../identity/identity.store.js';
import { SetUserTimeZone } from '../user-settings.commands.js';
import { GetProfile, USER_SETTINGS_READ_MODEL } from '../user-settings.queries.js';
import { PatchProfileRequest } from './me.requests.js';
import { ProfileResponse } from './me.responses.js';

@ApiTags('Me')
@ApiBearerAuth('bearerAuth')
@Controller('me')
export class MeHttpController {
  constructor(
    private readonly commands: ConsistentCommandBus,
    private readonly queries: QueryBus,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @Get()
  @ApiOperation({ operationId: 'getMe', summary: 'The signed-in user: who they are and their settings (time zone)' })
  @ApiOkResponse({ type: ProfileResponse })
  @ApiErrors(401, 403)
  get(@CurrentPrincipal() principal: Principal): Promise<ProfileResponse> {
    return this.queries.execute(new GetProfile(principal.user.id));
  }

  @Patch()
  @ApiOperation({
    operationId: 'patchMe',
    summary: "Change the user's settings: `timeZone` (an IANA name)",
    description: 'Needs the `write` scope. Setting the zone the user already has changes nothing and answers the profile.',
  })
  @ApiOkResponse({ type: ProfileResponse })
  @ApiErrors(401, 403, 409, 422, 503)
  async patch(@CurrentPrincipal() principal: Principal, @Trace() trace: RequestTrace, @Body() body: PatchProfileRequest): Promise<ProfileResponse> {
    await this.commands.execute(new SetUserTimeZone(body.timeZone, userCommandContext(principal, trace, this.clock)), [USER_SETTINGS_READ_MODEL]);
    return this.queries.execute(new GetProfile(principal.user.id));
  }
}
