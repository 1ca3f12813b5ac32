import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';

const CLIENT_REQUEST_ID = /^[\w\-.:]{1,128}$/;

declare module 'fastify' {
  interface FastifyRequest {
    /** X-Correlation-Id: the client's own when sane, else the request id (the request starts its own correlation). */
    correlationId: string;
    /** Who the credentials guard let in (the principal), and their id for the request's log line. */
    principal: unknown;
    principalUserId: string | undefined;
  }
}

export type RequestWithContext = FastifyRequest;

/**
 * The request id (X-Request-Id): the client's own when it sent a sane one, else a new UUID.
 * Fastify's `genReqId`, so the id exists even for a request the router refuses before any hook.
 */
export function requestIdOf(request: IncomingMessage): string {
  return saneClientId(request.headers['x-request-id']) ?? randomUUID();
}

/**
 * Every response carries X-Request-Id and X-Correlation-Id, and every request gets one log line
 * when its response is sent.
 */
export function installRequestContext(fastify: FastifyInstance, log: Logger): void {
  fastify.decorateRequest('correlationId', '');
  fastify.decorateRequest('principal', undefined);
  fastify.decorateRequest('principalUserId', undefined);
  fastify.addHook('onRequest', (request, reply, done) => {
    request.correlationId = saneClientId(request.headers['x-correlation-id']) ?? request.id;
    reply.header('X-Request-Id', request.id);
    reply.header('X-Correlation-Id', request.correlationId);
    done();
  });
  // The path, never the URL: the query string of /api/auth/callback carries the OAuth code and state.
  fastify.addHook('onResponse', (request, reply, done) => {
    log.info(
      { requestId: request.id, correlationId: request.correlationId || request.id, method: request.method, path: pathOf(request.url), status: reply.statusCode, durationMs: Math.round(reply.elapsedTime * 10) / 10, userId: request.principalUserId },
      'request',
    );
    done();
  });
}

export function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query < 0 ? url : url.slice(0, query);
}

function saneClientId(offered: string | string[] | undefined): string | undefined {
  return typeof offered === 'string' && CLIENT_REQUEST_ID.test(offered) ? offered : undefined;
}
