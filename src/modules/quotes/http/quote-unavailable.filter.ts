import { type ArgumentsHost, Catch, type ExceptionFilter } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { flatError } from '../../../infrastructure/http/error-bodies.js';
import { QuoteProviderUnavailableError } from '../quote.port.js';

/** A client may retry an unavailable provider after this long; a provider that is off needs an operator, not a retry. */
export const QUOTE_RETRY_AFTER_SECONDS = 5;

/** 503 for the quote operation's provider errors; every other error goes on to the global filter. */
@Catch(QuoteProviderUnavailableError)
export class QuoteUnavailableFilter implements ExceptionFilter<QuoteProviderUnavailableError> {
  catch(error: QuoteProviderUnavailableError, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    if (reply.sent || reply.raw.headersSent) return;
    if (error.reason === 'not_configured') {
      reply.code(503).send(flatError('QUOTE_PROVIDER_NOT_CONFIGURED', error.message));
      return;
    }
    reply.header('Retry-After', String(QUOTE_RETRY_AFTER_SECONDS));
    reply.code(503).send(flatError('QUOTE_PROVIDER_UNAVAILABLE', error.message));
  }
}
