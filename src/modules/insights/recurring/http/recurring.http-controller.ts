import { Controller, Get } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal } from '../../../../infrastructure/http/api-key.guard.js';
import { ApiErrors } from '../../../../infrastructure/http/openapi-errors.js';
import type { Principal } from '../../../identity/identity.store.js';
import { ListRecurringStreams } from '../recurring.queries.js';
import { RecurringStreamsResponse } from './recurring.responses.js';

const HOW_DETECTED =
  "Streams are detected from your transactions (same payee and direction in one account, similar amounts, a regular interval): subscriptions, bills and paychecks. " +
  'Detection runs in the background a few seconds after a bank-link sync that changed transactions and after you create, edit or delete one, so a change shows shortly after, not at once. ' +
  'Only active streams are listed: a stream whose next payment is overdue past a grace that depends on its cadence has stopped (TOMBSTONED) and leaves the list, ' +
  'as do streams of deleted accounts and of disconnected items. Removed and deleted transactions keep no stream alive.';

@ApiTags('Insights')
@ApiBearerAuth('bearerAuth')
@Controller('recurring')
export class RecurringHttpController {
  constructor(private readonly queries: QueryBus) {}

  @Get()
  @ApiOperation({ operationId: 'listRecurringStreams', summary: 'Active recurring streams: subscriptions, bills and recurring deposits', description: HOW_DETECTED })
  @ApiOkResponse({ type: RecurringStreamsResponse })
  @ApiErrors(401, 403)
  list(@CurrentPrincipal() principal: Principal) {
    return this.queries.execute(new ListRecurringStreams(principal.user.id));
  }
}
