import { Body, Controller, Inject, Put } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Clock } from '../../../core/clock.js';
import { newId } from '../../../core/ids.js';
import { toDecimalString } from '../../../core/money.js';
import { CurrentPrincipal } from '../../../infrastructure/http/api-key.guard.js';
import { type IfMatch, IfMatchHeader } from '../../../infrastructure/http/entity-tags.js';
import { ClaimsKeyWithItsAppend } from '../../../infrastructure/http/idempotency/idempotency.interceptor.js';
import { ApiErrors } from '../../../infrastructure/http/openapi-errors.js';
import { type RequestTrace, Trace, UuidParam, userCommandContext } from '../../../infrastructure/http/request-helpers.js';
import { ConsistentCommandBus } from '../../../infrastructure/runtime/consistent-command-bus.js';
import { CLOCK } from '../../../infrastructure/runtime/tokens.js';
import type { Principal } from '../../identity/identity.store.js';
import { TransactionResponse } from '../http/transaction.responses.js';
import { TRANSACTION_READ_MODELS } from '../http/transaction-read-models.js';
import { ExecuteTransactionCommand } from '../transaction.commands.js';
import { GetTransaction } from '../transaction.queries.js';
import { PutSplitsRequest } from './split.requests.js';

@ApiTags('Transactions')
@ApiBearerAuth('bearerAuth')
@Controller('transactions')
export class SplitsHttpController {
  constructor(
    private readonly commands: ConsistentCommandBus,
    private readonly queries: QueryBus,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @Put(':transactionId/splits')
  @ClaimsKeyWithItsAppend()
  @ApiOperation({
    operationId: 'splitTransaction',
    summary: "Split a transaction into parts, each with its own category, summing exactly to its amount; `{splits: []}` removes the split. A change of the amount clears it",
  })
  @ApiOkResponse({ type: TransactionResponse })
  @ApiErrors(401, 403, 404, 409, 422, 503)
  async split(
    @CurrentPrincipal() principal: Principal,
    @Trace() trace: RequestTrace,
    @UuidParam('transactionId', 'Transaction') transactionId: string,
    @Body() body: PutSplitsRequest,
    @IfMatchHeader() ifMatch: IfMatch | undefined,
  ) {
    const context = userCommandContext(principal, trace, this.clock);
    const splits = body.splits.map((part) => ({ splitId: newId(), amount: toDecimalString(part.amount), categoryId: part.categoryId?.toLowerCase() ?? null, notes: part.notes ?? null }));
    await this.commands.execute(new ExecuteTransactionCommand(transactionId, { type: 'SplitTransaction', transactionId, splits }, context, ifMatch), TRANSACTION_READ_MODELS);
    return this.queries.execute(new GetTransaction(principal.user.id, transactionId));
  }
}
