import type { FastifyInstance } from 'fastify';
import { carriesJsonBody, carriesStatementBody } from './request-body-limits.js';
import { readRequestBody } from './request-body.reader.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The bytes of a JSON body as they came (the bank-link webhook's signature is over them). */
    rawBody: Buffer | undefined;
    /** Why the body was refused at the edge, answered before any guard or handler runs. */
    bodyRefusal: Error | null;
  }
}

/**
 * Every body is read by readRequestBody, and only there: Fastify's own parsers are removed. A
 * refusal is kept and thrown from preValidation, not handed to Fastify as a parser error, which
 * would answer `Connection: close`; the connection stays open, the body having been read to its end.
 */
export function installRequestBody(fastify: FastifyInstance): void {
  fastify.decorateRequest('rawBody', undefined);
  fastify.decorateRequest('bodyRefusal', null);
  // A body the API does not read (another type, or a method that takes none) changes nothing,
  // whatever its Content-Type says; Fastify would answer 415 to one it cannot parse before any parser runs.
  fastify.addHook('onRequest', (request, _reply, done) => {
    if (request.headers['content-type'] !== undefined && !carriesJsonBody(request) && !carriesStatementBody(request)) delete request.raw.headers['content-type'];
    done();
  });
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('*', (request, _payload, done) => {
    void readRequestBody(request.raw).then((body) => {
      if (body.kind === 'json') {
        request.rawBody = body.raw;
        done(null, body.value);
        return;
      }
      // A statement file reaches its operation as it came (see STATEMENT_UPLOAD).
      if (body.kind === 'file') {
        done(null, body.file);
        return;
      }
      if (body.kind === 'refused') request.bodyRefusal = body.error;
      done(null, undefined);
    });
  });
  fastify.addHook('preValidation', (request, _reply, done) => done(request.bodyRefusal ?? undefined));
}

export function bodyWasRefused(request: object): boolean {
  return (request as { bodyRefusal?: Error | null }).bodyRefusal != null;
}
