import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { IdempotentReplay } from './idempotency/idempotency.interceptor.js';
import { DomainRuleError, NotFoundError, ValidationFailedError, WriteNotVisibleError } from '../../core/errors.js';
import { flatError, nestedError, UNAUTHORIZED_MESSAGE, validationError } from './error-bodies.js';
import { BodyTooDeepError, MAX_BODY_TEXT } from './request-body-limits.js';
import { pathOf } from './request-context.hooks.js';

export class UnauthorizedError extends Error {}
export class ForbiddenError extends Error {}
export class RateLimitedError extends Error {
  constructor(readonly retryAfterSeconds: number) {
    super(`Too many requests: try again in ${retryAfterSeconds} s.`);
  }
}

interface HttpErrorResponse {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** Maps every error to its documented status and body; anything unexpected is logged and becomes a bare 500. */
@Catch()
export class HttpErrorFilter implements ExceptionFilter {
  constructor(private readonly log: Logger) {}

  catch(error: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    this.answer(error, http.getRequest<FastifyRequest>(), http.getResponse<FastifyReply>());
  }

  /** Also Fastify's `frameworkErrors`: what its router refuses before any hook or Nest sees the request. */
  answer(error: unknown, request: FastifyRequest, reply: FastifyReply): void {
    const { status, body, headers } = this.toResponse(error, request);
    if (reply.sent || reply.raw.headersSent) return;
    // The router refuses a malformed URL before any hook has run: the request's ids go on its answer here.
    if (!reply.hasHeader('X-Request-Id')) reply.header('X-Request-Id', request.id).header('X-Correlation-Id', request.correlationId || request.id);
    for (const [name, value] of Object.entries(headers ?? {})) reply.header(name, value);
    reply.code(status).send(body);
  }

  private toResponse(error: unknown, request: FastifyRequest): HttpErrorResponse {
    if (error instanceof IdempotentReplay) return { status: error.answer.status, body: error.answer.body, headers: { ...error.answer.headers, 'Idempotent-Replayed': 'true' } };
    if (error instanceof ValidationFailedError) return { status: 422, body: validationError(error.issues) };
    if (error instanceof NotFoundError) return { status: 404, body: flatError('NOT_FOUND', error.message) };
    if (error instanceof DomainRuleError) return { status: error.status, body: flatError(error.code, error.message) };
    if (error instanceof WriteNotVisibleError) return writeNotVisible(error, request.id);
    if (error instanceof UnauthorizedError) return { status: 401, body: nestedError('UNAUTHORIZED', UNAUTHORIZED_MESSAGE) };
    if (error instanceof ForbiddenError) return { status: 403, body: nestedError('FORBIDDEN', error.message) };
    if (error instanceof RateLimitedError) {
      return { status: 429, body: nestedError('RATE_LIMITED', error.message), headers: { 'Retry-After': String(error.retryAfterSeconds) } };
    }
    if (error instanceof BodyTooDeepError) return { status: 400, body: flatError('BAD_REQUEST', error.message) };
    // The edge's body refusals (request-body.reader) arrive as they are, or wrapped by Nest as the cause of a 400.
    const parserError = ((error instanceof HttpException ? error.cause : undefined) ?? error) as { type?: string; status?: unknown; expose?: unknown; message?: string; code?: unknown; limitText?: unknown };
    if (parserError.type === 'entity.parse.failed') return { status: 400, body: flatError('BAD_REQUEST', 'The request body is not valid JSON.') };
    if (parserError.type === 'entity.too.large') return { status: 413, body: flatError('PAYLOAD_TOO_LARGE', `The request body is larger than ${typeof parserError.limitText === 'string' ? parserError.limitText : MAX_BODY_TEXT}.`) };
    if (parserError.type === 'charset.unsupported' || parserError.type === 'encoding.unsupported') {
      return { status: 415, body: flatError('UNSUPPORTED_MEDIA_TYPE', 'Send JSON encoded as UTF-8.') };
    }
    // The router could not percent-decode the path: such a path names nothing.
    if (parserError.code === 'FST_ERR_BAD_URL') {
      return { status: 404, body: flatError('NOT_FOUND', 'Nothing is found at a path that is not valid percent-encoded UTF-8.') };
    }
    // Any other refusal of the request at the edge (aborted, wrong length, ...).
    if (parserError.expose === true && typeof parserError.status === 'number' && parserError.status >= 400 && parserError.status < 500) {
      return { status: parserError.status, body: flatError(codeForStatus(parserError.status), 'The request could not be read.') };
    }
    // Fastify's own refusals of a request it cannot route or read (FST_ERR_*, with their statusCode).
    const fastifyStatus = (error as { statusCode?: unknown }).statusCode;
    if (typeof parserError.code === 'string' && parserError.code.startsWith('FST_ERR_') && typeof fastifyStatus === 'number' && fastifyStatus >= 400 && fastifyStatus < 500) {
      return { status: fastifyStatus, body: flatError(codeForStatus(fastifyStatus), 'The request could not be read.') };
    }
    if (error instanceof HttpException) {
      const status = error.getStatus();
      if (status === 404) return { status, body: nestedError('NOT_FOUND', `No route for ${request.method} ${request.originalUrl.split('?')[0]}`) };
      if (status < 500) return { status, body: flatError(codeForStatus(status), error.message) };
    }
    this.log.error({ err: error, requestId: request.id, method: request.method, path: pathOf(request.url) }, 'unexpected error');
    return { status: 500, body: nestedError('INTERNAL', 'Internal server error') };
  }
}

/** 503: the write is stored; `READ_MODEL_LAGGING` is worth a retry of the read, `READ_MODEL_FAILED` needs an operator. */
function writeNotVisible(error: WriteNotVisibleError, requestId: string | undefined): HttpErrorResponse {
  const lagging = error.reason === 'lagging';
  return {
    status: 503,
    body: { ...flatError(lagging ? 'READ_MODEL_LAGGING' : 'READ_MODEL_FAILED', error.message), requestId: requestId ?? null },
    headers: lagging ? { 'Retry-After': '1' } : undefined,
  };
}

function codeForStatus(status: number): string {
  switch (status) {
    case 400:
      return 'BAD_REQUEST';
    case 405:
      return 'METHOD_NOT_ALLOWED';
    case 413:
      return 'PAYLOAD_TOO_LARGE';
    case 415:
      return 'UNSUPPORTED_MEDIA_TYPE';
    default:
      return 'BAD_REQUEST';
  }
}
