import { ApiProperty } from '@nestjs/swagger';
import type { Quote } from '../quote.port.js';

export class QuoteResponse {
  @ApiProperty({ example: 'AAPL', description: 'The ticker, upper case.' }) symbol!: string;
  @ApiProperty({ example: 'Apple Inc.' }) name!: string;
  @ApiProperty({ example: 203.45, description: 'The last price: the session’s close once it has closed.' }) price!: number;
  @ApiProperty({ example: 'USD', description: 'ISO 4217 code of every price in the quote.' }) currency!: string;
  @ApiProperty({ example: 1.2, description: 'price − previousClose.' }) change!: number;
  @ApiProperty({ example: 0.59, description: 'The change in percent of previousClose, two decimals: 0.59 means +0.59 %.' }) changePercent!: number;
  @ApiProperty({ example: 202.25 }) previousClose!: number;
  @ApiProperty({ example: 202.8 }) open!: number;
  @ApiProperty({ example: 204.1 }) dayHigh!: number;
  @ApiProperty({ example: 201.95 }) dayLow!: number;
  @ApiProperty({ type: 'integer', minimum: 0, example: 48_213_000, description: 'Shares traded in the session.' }) volume!: number;
  @ApiProperty({ format: 'date', example: '2026-11-20', description: 'YYYY-MM-DD of the trading session the quote describes (the last one on or before today).' }) asOf!: string;
}

/** The port's decimal strings as the API's JSON numbers (prices carry two decimals, so a double holds them exactly enough to print back). */
export function toQuoteResponse(quote: Quote): QuoteResponse {
  return {
    symbol: quote.symbol,
    name: quote.name,
    price: Number(quote.price),
    currency: quote.currency,
    change: Number(quote.change),
    changePercent: Number(quote.changePercent),
    previousClose: Number(quote.previousClose),
    open: Number(quote.open),
    dayHigh: Number(quote.dayHigh),
    dayLow: Number(quote.dayLow),
    volume: quote.volume,
    asOf: quote.asOf,
  };
}

export const QUOTE_UNAVAILABLE_CODES = ['QUOTE_PROVIDER_UNAVAILABLE', 'QUOTE_PROVIDER_NOT_CONFIGURED'] as const;

/** 503 of the quote operation: the flat error shape, its code saying whether a retry can help. */
export class QuoteUnavailableBody {
  @ApiProperty({ enum: QUOTE_UNAVAILABLE_CODES, example: 'QUOTE_PROVIDER_UNAVAILABLE' }) code!: string;
  @ApiProperty({ example: 'The quote provider did not answer within 2000 ms.' }) error!: string;
}
