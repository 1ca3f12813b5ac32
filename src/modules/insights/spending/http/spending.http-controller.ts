import { Controller, Get, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal } from '../../../../infrastructure/http/api-key.guard.js';
import { ApiErrors } from '../../../../infrastructure/http/openapi-errors.js';
import type { Principal } from '../../../identity/identity.store.js';
import { GetSpending } from '../spending.queries.js';
import { DEFAULT_SPENDING_PERIOD } from '../spending-window.js';
import { CreditCardSpendingQuery, SpendingQuery } from './spending.query-params.js';
import { SpendingResponse } from './spending.responses.js';

const WHAT_COUNTS =
  'Spending is money out: posted (non-pending) transactions, debits net of refunds. Per bucket, amount = max(0, Σ −amount over debits − Σ amount over credits), ' +
  'over transactions whose category counts as spending; a credit counts as a refund only if it carries such a category (uncategorized debits count, uncategorized credits do not). ' +
  'Not spending: categories marked `excludeFromInsights`, the `INCOME`, `TRANSFER_IN` and `TRANSFER_OUT` groups, and credit-card payments (`LOAN_PAYMENTS_CREDIT_CARD_PAYMENT`, money between your own accounts). ' +
  "A change to a category's exclusion or group shows at once. A transaction's day is its `date`; your time zone decides only which day is today. " +
  'Deleted accounts and the accounts of disconnected items are left out.';

@ApiTags('Insights')
@ApiBearerAuth('bearerAuth')
@Controller('spending')
export class SpendingHttpController {
  constructor(private readonly queries: QueryBus) {}

  @Get()
  @ApiOperation({ operationId: 'getSpending', summary: 'Money out over a trailing window, bucketed for a chart, with its total and average', description: WHAT_COUNTS })
  @ApiOkResponse({ type: SpendingResponse })
  @ApiErrors(401, 403, 404, 422)
  spending(@CurrentPrincipal() principal: Principal, @Query() query: SpendingQuery) {
    return this.queries.execute(new GetSpending(principal.user.id, { period: query.period ?? DEFAULT_SPENDING_PERIOD, accountId: query.accountId, accountType: query.accountType }));
  }

  @Get('credit')
  @ApiOperation({ operationId: 'getCreditSpending', summary: 'The same as GET /spending over credit cards only', description: `${WHAT_COUNTS} An accountId that is not a credit card narrows to nothing (every bucket 0).` })
  @ApiOkResponse({ type: SpendingResponse })
  @ApiErrors(401, 403, 404, 422)
  credit(@CurrentPrincipal() principal: Principal, @Query() query: CreditCardSpendingQuery) {
    return this.queries.execute(new GetSpending(principal.user.id, { period: query.period ?? DEFAULT_SPENDING_PERIOD, accountId: query.accountId, accountType: 'credit_card' }));
  }
}
