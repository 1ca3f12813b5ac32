import { Body, Controller, Delete, Get, HttpCode, Inject, Patch, Post, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { Kysely } from 'kysely';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiCreatedResponse, ApiTags } from '@nestjs/swagger';
import { accountsProjection } from '../../../../projections/accounts/accounts.projection.js';
import { balanceSnapshotsProjection } from '../../../../projections/balance-snapshots/balance-snapshots.projection.js';
import { type Clock, isoDate } from '../../../core/clock.js';
import { NotFoundError } from '../../../core/errors.js';
import { toDecimalString } from '../../../core/money.js';
import { CurrentPrincipal } from '../../../infrastructure/http/api-key.guard.js';
import { entityTagOf, type IfMatch, IfMatchHeader, preconditionFailed, withEntityTag } from '../../../infrastructure/http/entity-tags.js';
import { ClaimsKeyWithItsAppend } from '../../../infrastructure/http/idempotency/idempotency.interceptor.js';
import { ApiErrors } from '../../../infrastructure/http/openapi-errors.js';
import { madeEarlierUnderKey, newEntityId, UuidParam, type RequestTrace, Trace, userCommandContext } from '../../../infrastructure/http/request-helpers.js';
import { SuccessResponse } from '../../../infrastructure/http/success.response.js';
import { ConsistentCommandBus } from '../../../infrastructure/runtime/consistent-command-bus.js';
import { CLOCK, DATABASE } from '../../../infrastructure/runtime/tokens.js';
import type { Database } from '../../../infrastructure/database/schema.js';
import type { Principal } from '../../identity/identity.store.js';
import { AccountRemoval } from '../account-removal.js';
import { ExecuteAccountCommand } from '../account.commands.js';
import { accountUnchangedSince, GetAccount, GetAccountListItem, ListAccounts } from '../account.queries.js';
import { ListBalanceSnapshots } from '../balance-snapshot.queries.js';
import { CreateManualAccountRequest, PatchAccountRequest, PatchManualBalanceRequest } from './account.requests.js';
import { AccountDetailResponse, AccountListResponse, BalanceSnapshotListResponse, ManualAccountCreatedResponse } from './account.responses.js';
import { BalanceSnapshotQuery } from './balance-snapshot.query-params.js';
import { parseInstant } from '../../../core/instant.js';
import { GetAccountAsOf } from '../../audit/as-of/account-as-of.query.js';
import { AsOfQuery } from '../../audit/as-of/as-of.query-params.js';

/** What an account write's response and the writer's next reads (the account, its balance history) are built from. */
const ACCOUNT_READ_MODELS = [accountsProjection.name, balanceSnapshotsProjection.name];

@ApiTags('Accounts')
@ApiBearerAuth('bearerAuth')
@Controller()
export class AccountsHttpController {
  constructor(
    private readonly commands: ConsistentCommandBus,
    private readonly queries: QueryBus,
    private readonly removal: AccountRemoval,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(DATABASE) private readonly db: Kysely<Database>,
  ) {}

  @Get('accounts')
  @ApiOperation({ operationId: 'listAccounts', summary: 'Every account of the user except deleted ones' })
  @ApiOkResponse({ type: AccountListResponse })
  @ApiErrors(401, 403)
  list(@CurrentPrincipal() principal: Principal) {
    return this.queries.execute(new ListAccounts(principal.user.id));
  }

  @Post('accounts')
  @ClaimsKeyWithItsAppend()
  @ApiOperation({
    operationId: 'createManualAccount',
    summary: "Create a manual account and seed today's balance snapshot",
    description: 'Answers the spec’s create fields (id, name, type, institution, mask, currency, balance, creditLimit) together with every field of the account as GET /accounts lists it (institution = institutionName, balance = current).',
  })
  @ApiCreatedResponse({ type: ManualAccountCreatedResponse })
  @ApiErrors(400, 401, 403, 422, 503)
  async create(@CurrentPrincipal() principal: Principal, @Trace() trace: RequestTrace, @Body() body: CreateManualAccountRequest): Promise<ManualAccountCreatedResponse> {
    const context = userCommandContext(principal, trace, this.clock);
    const accountId = newEntityId(context, 'account');
    const data = {
      accountId,
      name: body.name,
      type: body.type,
      subtype: body.subtype,
      currency: body.currency ?? 'USD',
      mask: body.mask ?? null,
      institutionName: body.institutionName ?? null,
      currentBalance: toDecimalString(body.currentBalance),
      creditLimit: body.creditLimit === undefined ? null : toDecimalString(body.creditLimit),
    };
    await this.commands.execute(new ExecuteAccountCommand(accountId, { type: 'CreateManualAccount', data, today: isoDate(context.now) }, context), ACCOUNT_READ_MODELS).catch((error: unknown) => {
      if (!madeEarlierUnderKey(error, context)) throw error;
    });
    const listed = await this.queries.execute(new GetAccountListItem(principal.user.id, accountId));
    return withEntityTag({ ...listed, institution: listed.institutionName, balance: listed.current ?? body.currentBalance }, entityTagOf(listed) ?? '0');
  }

  @Get('accounts/:accountId')
  @ApiOperation({ operationId: 'getAccount', summary: 'One account in detail; with asOf, as it stood at that instant (its balance and fields then)' })
  @ApiOkResponse({ type: AccountDetailResponse })
  @ApiErrors(401, 403, 404, 422)
  get(@CurrentPrincipal() principal: Principal, @UuidParam('accountId', 'Account') accountId: string, @Query() query: AsOfQuery) {
    const asOf = parseInstant(query.asOf);
    return this.queries.execute(asOf ? new GetAccountAsOf(principal.user.id, accountId, asOf) : new GetAccount(principal.user.id, accountId));
  }

  @Patch('accounts/:accountId')
  @ClaimsKeyWithItsAppend()
  @ApiOperation({ operationId: 'patchAccount', summary: 'Set or clear your own credit limit for a credit card' })
  @ApiOkResponse({ type: AccountDetailResponse })
  @ApiErrors(401, 403, 404, 422, 503)
  async patch(
    @CurrentPrincipal() principal: Principal,
    @Trace() trace: RequestTrace,
    @UuidParam('accountId', 'Account') accountId: string,
    @Body() body: PatchAccountRequest,
    @IfMatchHeader() ifMatch: IfMatch | undefined,
  ) {
    if (body.creditLimit !== undefined) {
      const creditLimit = body.creditLimit === null ? null : toDecimalString(body.creditLimit);
      const context = userCommandContext(principal, trace, this.clock);
      await this.commands.execute(new ExecuteAccountCommand(accountId, { type: 'OverrideCreditLimit', accountId, creditLimit }, context, ifMatch), ACCOUNT_READ_MODELS);
    } else if (ifMatch !== undefined) {
      await accountUnchangedSince(this.db, principal.user.id, accountId, ifMatch);
    }
    return this.queries.execute(new GetAccount(principal.user.id, accountId));
  }

  @Patch('accounts/:accountId/balance')
  @ClaimsKeyWithItsAppend()
  @ApiOperation({ operationId: 'patchManualAccountBalance', summary: "Set a manual account's current balance (snapshots today)" })
  @ApiOkResponse({ type: AccountDetailResponse })
  @ApiErrors(400, 401, 403, 404, 422, 503)
  async patchBalance(
    @CurrentPrincipal() principal: Principal,
    @Trace() trace: RequestTrace,
    @UuidParam('accountId', 'Account') accountId: string,
    @Body() body: PatchManualBalanceRequest,
    @IfMatchHeader() ifMatch: IfMatch | undefined,
  ) {
    const context = userCommandContext(principal, trace, this.clock);
    const command = { type: 'UpdateManualBalance' as const, accountId, current: toDecimalString(body.current), today: isoDate(context.now) };
    await this.commands.execute(new ExecuteAccountCommand(accountId, command, context, ifMatch), ACCOUNT_READ_MODELS);
    return this.queries.execute(new GetAccount(principal.user.id, accountId));
  }

  @Delete('accounts/:accountId')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'deleteAccount',
    summary: 'Delete a manual account, or disconnect a linked one: it and its transactions leave every list (idempotent)',
    description:
      'One rule for every source. The account leaves GET /accounts (and GET /accounts/{accountId} is then a 404), its transactions, balance snapshots, spending and ' +
      'recurring streams leave every list, and an accountId filter naming it is a 404; its history stays in the event streams. A bank-link or brokerage ' +
      'account is disconnected from its connection: later syncs and reconnects do not bring it back, and its connection’s last account takes the connection ' +
      'with it (the link item or brokerage authorization is disconnected and removed at the provider). Again, or an account that is not yours: success, nothing changes.',
  })
  @ApiOkResponse({ type: SuccessResponse })
  @ApiErrors(400, 401, 403, 404, 503)
  async remove(
    @CurrentPrincipal() principal: Principal,
    @Trace() trace: RequestTrace,
    @UuidParam('accountId', 'Account') accountId: string,
    @IfMatchHeader() ifMatch: IfMatch | undefined,
  ): Promise<SuccessResponse> {
    // Checked before the removal (which may reach the account's connection), not as a condition of its appends.
    if (ifMatch !== undefined) {
      await accountUnchangedSince(this.db, principal.user.id, accountId, ifMatch).catch((error: unknown) => {
        throw error instanceof NotFoundError ? preconditionFailed('Account') : error;
      });
    }
    const { removed, connectionDisconnected } = await this.removal.remove(userCommandContext(principal, trace, this.clock), accountId);
    const message = !removed ? 'Nothing to delete: the account is already gone' : connectionDisconnected ? 'Account removed, and its connection with it (it was the last account)' : 'Account removed';
    return { success: true, message };
  }

  @Get('balances/snapshots')
  @ApiOperation({ operationId: 'listBalanceSnapshots', summary: 'End-of-day balances of every account but brokerage-linked ones (manual investment accounts included), oldest first' })
  @ApiOkResponse({ type: BalanceSnapshotListResponse })
  @ApiErrors(401, 403, 404, 422)
  snapshots(@CurrentPrincipal() principal: Principal, @Query() query: BalanceSnapshotQuery) {
    return this.queries.execute(new ListBalanceSnapshots(principal.user.id, query));
  }
}
