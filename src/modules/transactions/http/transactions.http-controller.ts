import { Body, Controller, Delete, Get, HttpCode, Inject, Patch, Post, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Clock } from '../../../core/clock.js';
import { toDecimalString } from '../../../core/money.js';
import { CurrentPrincipal } from '../../../infrastructure/http/api-key.guard.js';
import { type IfMatch, IfMatchHeader } from '../../../infrastructure/http/entity-tags.js';
import { ClaimsKeyWithItsAppend } from '../../../infrastructure/http/idempotency/idempotency.interceptor.js';
import { ApiErrors } from '../../../infrastructure/http/openapi-errors.js';
import { madeEarlierUnderKey, newEntityId, UuidParam, type RequestTrace, Trace, userCommandContext } from '../../../infrastructure/http/request-helpers.js';
import { SuccessResponse } from '../../../infrastructure/http/success.response.js';
import { ConsistentCommandBus } from '../../../infrastructure/runtime/consistent-command-bus.js';
import { CLOCK } from '../../../infrastructure/runtime/tokens.js';
import type { Principal } from '../../identity/identity.store.js';
import type { TransactionLocation } from '../transaction.js';
import { ExecuteTransactionCommand } from '../transaction.commands.js';
import type { TransactionPatch } from '../transaction.decider.js';
import { GetTransaction, GetTransactionActivity, ListTransactions } from '../transaction.queries.js';
import { TransactionListQuery } from './transaction-list.query-params.js';
import { TRANSACTION_READ_MODELS } from './transaction-read-models.js';
import { CreateTransactionRequest, type LocationRequest, PatchTransactionRequest } from './transaction.requests.js';
import { TransactionActivityResponse, TransactionPageResponse, TransactionResponse } from './transaction.responses.js';
import { parseInstant } from '../../../core/instant.js';
import { AsOfQuery } from '../../audit/as-of/as-of.query-params.js';
import { GetTransactionAsOf } from '../../audit/as-of/transaction-as-of.query.js';

const DEFAULT_LIMIT = 50;


@ApiTags('Transactions')
@ApiBearerAuth('bearerAuth')
@Controller('transactions')
export class TransactionsHttpController {
  constructor(
    private readonly commands: ConsistentCommandBus,
    private readonly queries: QueryBus,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @Get()
  @ApiOperation({ operationId: 'listTransactions', summary: 'Transactions across all accounts, newest first, one keyset page at a time' })
  @ApiOkResponse({ type: TransactionPageResponse })
  @ApiErrors(401, 403, 404, 422)
  list(@CurrentPrincipal() principal: Principal, @Query() query: TransactionListQuery) {
    return this.queries.execute(
      new ListTransactions(principal.user.id, {
        accountIds: (query.accountId ?? []).map((id) => id.toLowerCase()),
        categoryGroups: query.categoryGroup ?? [],
        categoryId: query.categoryId?.toLowerCase(),
        tagId: query.tagId?.toLowerCase(),
        startDate: query.startDate,
        endDate: query.endDate,
        cursor: query.cursor,
        limit: query.limit ?? DEFAULT_LIMIT,
      }),
    );
  }

  @Post()
  @ClaimsKeyWithItsAppend()
  @ApiOperation({ operationId: 'createTransaction', summary: 'Create a transaction in a manual account' })
  @ApiCreatedResponse({ type: TransactionResponse })
  @ApiErrors(400, 401, 403, 404, 422, 503)
  async create(@CurrentPrincipal() principal: Principal, @Trace() trace: RequestTrace, @Body() body: CreateTransactionRequest) {
    const context = userCommandContext(principal, trace, this.clock);
    const transactionId = newEntityId(context, 'transaction');
    const data = {
      transactionId,
      accountId: body.accountId.toLowerCase(),
      source: 'manual' as const,
      amount: toDecimalString(body.amount),
      date: body.date,
      name: body.name,
      merchantName: body.merchantName ?? null,
      categoryId: body.categoryId?.toLowerCase() ?? null,
      notes: body.notes ?? null,
      pending: body.pending ?? false,
      paymentChannel: body.paymentChannel ?? null,
      location: body.location ? locationOf(body.location) : null,
      tagIds: normaliseTagIds(body.tagIds ?? []),
      authorizedDate: body.authorizedDate ?? null,
    };
    await this.commands.execute(new ExecuteTransactionCommand(transactionId, { type: 'CreateTransaction', data }, context), TRANSACTION_READ_MODELS).catch((error: unknown) => {
      if (!madeEarlierUnderKey(error, context)) throw error;
    });
    return this.queries.execute(new GetTransaction(principal.user.id, transactionId));
  }

  @Get(':transactionId')
  @ApiOperation({ operationId: 'getTransaction', summary: 'One transaction; with asOf, as it stood at that instant' })
  @ApiOkResponse({ type: TransactionResponse })
  @ApiErrors(401, 403, 404, 422)
  get(@CurrentPrincipal() principal: Principal, @UuidParam('transactionId', 'Transaction') transactionId: string, @Query() query: AsOfQuery) {
    const asOf = parseInstant(query.asOf);
    return this.queries.execute(asOf ? new GetTransactionAsOf(principal.user.id, transactionId, asOf) : new GetTransaction(principal.user.id, transactionId));
  }

  @Patch(':transactionId')
  @ClaimsKeyWithItsAppend()
  @ApiOperation({
    operationId: 'updateTransaction',
    summary: 'Sparse edit: a field present is written and locked against provider syncs; null restores the original value and unlocks it',
  })
  @ApiOkResponse({ type: TransactionResponse })
  @ApiErrors(401, 403, 404, 409, 422, 503)
  async patch(
    @CurrentPrincipal() principal: Principal,
    @Trace() trace: RequestTrace,
    @UuidParam('transactionId', 'Transaction') transactionId: string,
    @Body() body: PatchTransactionRequest,
    @IfMatchHeader() ifMatch: IfMatch | undefined,
  ) {
    const context = userCommandContext(principal, trace, this.clock);
    await this.commands.execute(new ExecuteTransactionCommand(transactionId, { type: 'EditTransaction', transactionId, patch: patchOf(body) }, context, ifMatch), TRANSACTION_READ_MODELS);
    return this.queries.execute(new GetTransaction(principal.user.id, transactionId));
  }

  @Delete(':transactionId')
  @HttpCode(200)
  @ClaimsKeyWithItsAppend()
  @ApiOperation({ operationId: 'deleteTransaction', summary: 'Delete a manual transaction; succeeds also when it is already gone or provider-managed' })
  @ApiOkResponse({ type: SuccessResponse })
  @ApiErrors(401, 403, 404, 503)
  async remove(
    @CurrentPrincipal() principal: Principal,
    @Trace() trace: RequestTrace,
    @UuidParam('transactionId', 'Transaction') transactionId: string,
    @IfMatchHeader() ifMatch: IfMatch | undefined,
  ): Promise<SuccessResponse> {
    const context = userCommandContext(principal, trace, this.clock);
    const outcome = await this.commands.execute(new ExecuteTransactionCommand(transactionId, { type: 'DeleteTransaction', transactionId }, context, ifMatch), TRANSACTION_READ_MODELS);
    return { success: true, message: outcome.events.length > 0 ? 'Transaction deleted' : 'Nothing to delete: the transaction is gone or managed by its provider' };
  }

  @Get(':transactionId/activity')
  @ApiOperation({ operationId: 'listTransactionActivity', summary: 'Field-change history of a transaction, oldest first: its values at creation, each change, and its values when it left (deleted, removed by the provider or replaced by its posted transaction)' })
  @ApiOkResponse({ type: TransactionActivityResponse })
  @ApiErrors(401, 403, 404)
  activity(@CurrentPrincipal() principal: Principal, @UuidParam('transactionId', 'Transaction') transactionId: string) {
    return this.queries.execute(new GetTransactionActivity(principal.user.id, transactionId));
  }
}

function patchOf(body: PatchTransactionRequest): TransactionPatch {
  const patch: TransactionPatch = {};
  if (body.name !== undefined) patch.name = body.name;
  if (body.merchantName !== undefined) patch.merchantName = body.merchantName;
  if (body.amount !== undefined) patch.amount = body.amount === null ? null : toDecimalString(body.amount);
  if (body.date !== undefined) patch.date = body.date;
  if (body.categoryId !== undefined) patch.categoryId = body.categoryId === null ? null : body.categoryId.toLowerCase();
  if (body.notes !== undefined) patch.notes = body.notes;
  if (body.paymentChannel !== undefined) patch.paymentChannel = body.paymentChannel;
  if (body.location !== undefined) patch.location = body.location === null ? null : locationOf(body.location);
  if (body.tagIds !== undefined) patch.tagIds = body.tagIds === null ? null : normaliseTagIds(body.tagIds);
  return patch;
}

/** Every location field present, in one order, so equal locations compare equal. */
function locationOf(location: LocationRequest): TransactionLocation {
  return {
    address: location.address ?? null,
    city: location.city ?? null,
    country: location.country ?? null,
    postal_code: location.postal_code ?? null,
    region: location.region ?? null,
    store_number: location.store_number ?? null,
    lat: location.lat ?? null,
    lon: location.lon ?? null,
  };
}

/** Lower-cased but in the client's order, so a validation issue's path points at its own entry. */
function normaliseTagIds(tagIds: readonly string[]): string[] {
  return tagIds.map((id) => id.toLowerCase());
}
