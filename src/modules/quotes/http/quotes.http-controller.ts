import { Controller, Get, Inject, UseFilters } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import { NotFoundError } from '../../../core/errors.js';
import { ApiErrors } from '../../../infrastructure/http/openapi-errors.js';
import { QUOTES, type Quotes } from '../quotes.wiring.js';
import { QuoteResponse, QuoteUnavailableBody, toQuoteResponse } from './quote.responses.js';
import { QUOTE_RETRY_AFTER_SECONDS, QuoteUnavailableFilter } from './quote-unavailable.filter.js';
import { TICKER_SYMBOL_PARAM, TickerSymbolParam } from './ticker-symbol.param.js';

@ApiTags('Market quotes')
@ApiBearerAuth('bearerAuth')
@Controller()
@UseFilters(new QuoteUnavailableFilter())
export class QuotesHttpController {
  constructor(@Inject(QUOTES) private readonly quotes: Quotes) {}

  @Get('tickers/:symbol/quote')
  @ApiOperation({
    operationId: 'getQuote',
    summary: 'The latest market quote for a ticker',
    description: 'Answered from a cache for a few seconds (QUOTE_CACHE_TTL_SECONDS, 15 by default): a quote, or a symbol’s absence, may be that old.',
  })
  @ApiParam(TICKER_SYMBOL_PARAM)
  @ApiOkResponse({ type: QuoteResponse })
  @ApiErrors(401, 403, 404, 422)
  @ApiResponse({
    status: 503,
    description:
      'No quote can be had now: the provider is down or did not answer in time (QUOTE_PROVIDER_UNAVAILABLE, with Retry-After), ' +
      'or this service has quotes turned off (QUOTE_PROVIDER_NOT_CONFIGURED, no Retry-After: retrying will not help).',
    headers: { 'Retry-After': { description: 'Seconds to wait before asking again (QUOTE_PROVIDER_UNAVAILABLE only)', schema: { type: 'integer', minimum: 1, example: QUOTE_RETRY_AFTER_SECONDS } } },
    type: QuoteUnavailableBody,
  })
  async quote(@TickerSymbolParam() symbol: string): Promise<QuoteResponse> {
    const lookup = await this.quotes.getQuote(symbol);
    if (!lookup.found) throw new NotFoundError('Quote');
    return toQuoteResponse(lookup.quote);
  }
}
