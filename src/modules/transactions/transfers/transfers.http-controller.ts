import { Body, Controller, Delete, Inject, Put } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Kysely } from 'kysely';
import type { Clock } from '../../../core/clock.js';
import { NotFoundError } from '../../../core/errors.js';
import type { Database } from '../../../infrastructure/database/schema.js';
import { CurrentPrincipal } from '../../../infrastructure/http/api-key.guard.js';
import { type IfMatch, IfMatchHeader } from '../../../infrastructure/http/entity-tags.js';
import { ApiErrors } from '../../../infrastructure/http/openapi-errors.js';
import { type RequestTrace, Trace, UuidParam, userCommandContext } from '../../../infrastructure/http/request-helpers.js';
import { ConsistentCommandBus } from '../../../infrastructure/runtime/consistent-command-bus.js';
import { CLOCK, DATABASE } from '../../../infrastructure/runtime/tokens.js';
import type { Principal } from '../../identity/identity.store.js';
import { TransactionResponse } from '../http/transaction.responses.js';
import { TRANSACTION_READ_MODELS } from '../http/transaction-read-models.js';
import { ExecuteTransactionCommand } from '../transaction.commands.js';
import { GetTransaction } from '../transaction.queries.js';
import { type PairSide, pairTransfer, type RunTransactionCommand, unpairTransfer } from './transfer-pairing.js';
import { PairTransferRequest } from './transfer.requests.js';

@ApiTags('Transactions')
@ApiBearerAuth('bearerAuth')
@Controller('transactions')
export class TransfersHttpController {
  constructor(
    private readonly commands: ConsistentCommandBus,
    private readonly queries: QueryBus,
    @Inject(DATABASE) private readonly db: Kysely<Database>,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @Put(':transactionId/transfer')
  @ApiOperation({
    operationId: 'pairTransfer',
    summary: 'Pair this transaction with its other side in another of your accounts, by hand: a pair either one was in is undone (and never re-paired automatically); both then count neither as spending nor as income',
  })
  @ApiOkResponse({ type: TransactionResponse })
  @ApiErrors(400, 401, 403, 404, 409, 422, 503)
  async pair(
    @CurrentPrincipal() principal: Principal,
    @Trace() trace: RequestTrace,
    @UuidParam('transactionId', 'Transaction') transactionId: string,
    @Body() body: PairTransferRequest,
    @IfMatchHeader() ifMatch: IfMatch | undefined,
  ) {
    const userId = principal.user.id;
    const counterpartId = body.transactionId.toLowerCase();
    const [side, counterpart] = await Promise.all([this.sideOf(userId, transactionId), this.sideOf(userId, counterpartId)]);
    await pairTransfer(this.runner(principal, trace, transactionId, ifMatch), side, counterpart, 'user');
    return this.queries.execute(new GetTransaction(userId, transactionId));
  }

  @Delete(':transactionId/transfer')
  @ApiOperation({ operationId: 'unpairTransfer', summary: 'Unpair this transaction and its other side: both count as spending or income again, and the two are never paired automatically again' })
  @ApiOkResponse({ type: TransactionResponse })
  @ApiErrors(401, 403, 404, 409, 503)
  async unpair(
    @CurrentPrincipal() principal: Principal,
    @Trace() trace: RequestTrace,
    @UuidParam('transactionId', 'Transaction') transactionId: string,
    @IfMatchHeader() ifMatch: IfMatch | undefined,
  ) {
    const userId = principal.user.id;
    await this.sideOf(userId, transactionId);
    await unpairTransfer(this.runner(principal, trace, transactionId, ifMatch), transactionId);
    return this.queries.execute(new GetTransaction(userId, transactionId));
  }

  /** A listed transaction of the user's, as a side of a pair; 404 for any other. */
  private async sideOf(userId: string, transactionId: string): Promise<PairSide> {
    const row = await this.db.selectFrom('transactions').select(['id', 'account_id', 'amount']).where('id', '=', transactionId).where('user_id', '=', userId).executeTakeFirst();
    if (!row) throw new NotFoundError('Transaction');
    return { transactionId: row.id, accountId: row.account_id, amount: row.amount };
  }

  /**
   * Commands as the user's, each waited for in the read models. The client's If-Match holds for the
   * first command on the transaction it named: an undo of that command, later in the same request,
   * follows the request's own append.
   */
  private runner(principal: Principal, trace: RequestTrace, transactionId: string, ifMatch: IfMatch | undefined): RunTransactionCommand {
    const context = userCommandContext(principal, trace, this.clock);
    let condition = ifMatch;
    return (id, command) => {
      const guard = id === transactionId ? condition : undefined;
      if (id === transactionId) condition = undefined;
      return this.commands.execute(new ExecuteTransactionCommand(id, command, context, guard), TRANSACTION_READ_MODELS);
    };
  }
}
