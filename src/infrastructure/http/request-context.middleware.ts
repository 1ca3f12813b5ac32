import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';

const CLIENT_REQUEST_ID = /^[\w\-.:]{1,128}$/;

export type RequestWithContext = Request & { id: string; correlationId: string; principalUserId?: string };

/**
 * Every response carries X-Request-Id (the client's own when it sent a sane one), X-Correlation-Id
 * (likewise; else the request id: the request starts its own correlation) and one log line.
 */
export function requestContext(log: Logger) {
  return (request: Request, response: Response, next: NextFunction) => {
    const id = saneClientId(request.header('x-request-id')) ?? randomUUID();
    const correlationId = saneClientId(request.header('x-correlation-id')) ?? id;
    (request as RequestWithContext).id = id;
    (request as RequestWithContext).correlationId = correlationId;
    response.setHeader('X-Request-Id', id);
    response.setHeader('X-Correlation-Id', correlationId);
    const started = process.hrtime.bigint();
    // request.path, never the URL: the query string of /api/auth/callback carries the OAuth code and state.
    response.on('finish', () => {
      const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
      log.info(
        { requestId: id, correlationId, method: request.method, path: request.path, status: response.statusCode, durationMs: Math.round(durationMs * 10) / 10, userId: (request as RequestWithContext).principalUserId },
        'request',
      );
    });
    next();
  };
}

function saneClientId(offered: string | undefined): string | undefined {
  return offered && CLIENT_REQUEST_ID.test(offered) ? offered : undefined;
}
