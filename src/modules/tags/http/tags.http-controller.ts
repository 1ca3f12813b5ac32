import { Body, Controller, Delete, Get, HttpCode, Inject, Patch, Post, Put } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { tagsProjection } from '../../../../projections/tags/tags.projection.js';
import { transactionActivityProjection } from '../../../../projections/transaction-activity/transaction-activity.projection.js';
import { transactionsProjection } from '../../../../projections/transactions/transactions.projection.js';
import type { Clock } from '../../../core/clock.js';
import { CurrentPrincipal } from '../../../infrastructure/http/api-key.guard.js';
import { type IfMatch, IfMatchHeader } from '../../../infrastructure/http/entity-tags.js';
import { ClaimsKeyWithItsAppend } from '../../../infrastructure/http/idempotency/idempotency.interceptor.js';
import { ApiErrors } from '../../../infrastructure/http/openapi-errors.js';
import { madeEarlierUnderKey, newEntityId, UuidParam, type RequestTrace, Trace, userCommandContext } from '../../../infrastructure/http/request-helpers.js';
import { ConsistentCommandBus } from '../../../infrastructure/runtime/consistent-command-bus.js';
import { CLOCK } from '../../../infrastructure/runtime/tokens.js';
import type { Principal } from '../../identity/identity.store.js';
import { TransactionResponse } from '../../transactions/http/transaction.responses.js';
import { ExecuteTransactionCommand } from '../../transactions/transaction.commands.js';
import { GetTransaction } from '../../transactions/transaction.queries.js';
import { BulkApplyTags } from '../bulk-apply-tags.command.js';
import { CreateTag, DeleteTag, EditTag } from '../tag.commands.js';
import { GetTag, ListTags } from '../tag.queries.js';
import { BulkApplyTagsRequest, CreateTagRequest, PatchTagRequest, SetTransactionTagsRequest } from './tag.requests.js';
import { BulkApplyTagsResponse, TagListResponse, TagResponse } from './tag.responses.js';

/** A tag write is read back from the tags read model; a tag's usage and transactions' tags from the transaction ones. */
const TAG_READ_MODELS = [tagsProjection.name];
const TRANSACTION_TAG_READ_MODELS = [transactionsProjection.name, transactionActivityProjection.name, tagsProjection.name];

@ApiTags('Tags')
@ApiBearerAuth('bearerAuth')
@Controller()
export class TagsHttpController {
  constructor(
    private readonly commands: ConsistentCommandBus,
    private readonly queries: QueryBus,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @Get('tags')
  @ApiOperation({ operationId: 'listTags', summary: 'Your tags, archived ones included, each with the number of live transactions carrying it' })
  @ApiOkResponse({ type: TagListResponse })
  @ApiErrors(401, 403)
  list(@CurrentPrincipal() principal: Principal) {
    return this.queries.execute(new ListTags(principal.user.id));
  }

  @Post('tags')
  @ApiOperation({ operationId: 'createTag', summary: 'Create a tag; its name is unique among your tags, ignoring case' })
  @ApiCreatedResponse({ type: TagResponse })
  @ApiErrors(401, 403, 409, 422, 503)
  async create(@CurrentPrincipal() principal: Principal, @Trace() trace: RequestTrace, @Body() body: CreateTagRequest) {
    const context = userCommandContext(principal, trace, this.clock);
    const tagId = newEntityId(context, 'tag');
    await this.commands.execute(new CreateTag(tagId, body.name, body.color, context), TAG_READ_MODELS).catch((error: unknown) => {
      if (!madeEarlierUnderKey(error, context)) throw error;
    });
    return this.queries.execute(new GetTag(principal.user.id, tagId));
  }

  // Declared before the {tagId} routes, so the document lists the literal path first.
  @Post('tags/bulk-apply')
  @HttpCode(200)
  @ApiOperation({ operationId: 'bulkApplyTags', summary: 'Add and/or remove tags on up to 1000 transactions; ids that are not your transactions are skipped' })
  @ApiOkResponse({ type: BulkApplyTagsResponse })
  @ApiErrors(401, 403, 409, 422, 503)
  async bulkApply(@CurrentPrincipal() principal: Principal, @Trace() trace: RequestTrace, @Body() body: BulkApplyTagsRequest): Promise<BulkApplyTagsResponse> {
    const context = userCommandContext(principal, trace, this.clock);
    const outcome = await this.commands.execute(new BulkApplyTags(body.transactionIds, body.addTagIds ?? [], body.removeTagIds ?? [], context), TRANSACTION_TAG_READ_MODELS);
    return { success: true, updatedCount: outcome.updatedCount };
  }

  @Patch('tags/:tagId')
  @ApiOperation({ operationId: 'updateTag', summary: 'Rename, recolour, archive or unarchive a tag' })
  @ApiOkResponse({ type: TagResponse })
  @ApiErrors(401, 403, 404, 409, 422, 503)
  async patch(@CurrentPrincipal() principal: Principal, @Trace() trace: RequestTrace, @UuidParam('tagId', 'Tag') tagId: string, @Body() body: PatchTagRequest) {
    const changes = { name: body.name, color: body.color, archived: body.archived };
    await this.commands.execute(new EditTag(tagId, changes, userCommandContext(principal, trace, this.clock)), TAG_READ_MODELS);
    return this.queries.execute(new GetTag(principal.user.id, tagId));
  }

  @Delete('tags/:tagId')
  @HttpCode(204)
  @ApiOperation({
    operationId: 'deleteTag',
    summary: 'Delete a tag for good: it leaves every list at once, and a background job takes it off each transaction (actor system in its activity). Deleting again is a 204.',
  })
  @ApiNoContentResponse({ description: 'Deleted (or already deleted); no body' })
  @ApiErrors(401, 403, 404, 503)
  async remove(@CurrentPrincipal() principal: Principal, @Trace() trace: RequestTrace, @UuidParam('tagId', 'Tag') tagId: string): Promise<void> {
    await this.commands.execute(new DeleteTag(tagId, userCommandContext(principal, trace, this.clock)), TAG_READ_MODELS);
  }

  @Put('transactions/:transactionId/tags')
  @ApiTags('Transactions')
  @ClaimsKeyWithItsAppend()
  @ApiOperation({ operationId: 'setTransactionTags', summary: "Replace a transaction's tags with this set (locks `tags` against provider syncs)" })
  @ApiOkResponse({ type: TransactionResponse })
  @ApiErrors(401, 403, 404, 409, 422, 503)
  async setTransactionTags(
    @CurrentPrincipal() principal: Principal,
    @Trace() trace: RequestTrace,
    @UuidParam('transactionId', 'Transaction') transactionId: string,
    @Body() body: SetTransactionTagsRequest,
    @IfMatchHeader() ifMatch: IfMatch | undefined,
  ) {
    const context = userCommandContext(principal, trace, this.clock);
    await this.commands.execute(new ExecuteTransactionCommand(transactionId, { type: 'EditTransaction', transactionId, patch: { tagIds: body.tagIds } }, context, ifMatch), TRANSACTION_TAG_READ_MODELS);
    return this.queries.execute(new GetTransaction(principal.user.id, transactionId));
  }
}
