import type { CallHandler, ExecutionContext, NestInterceptor } from '@nestjs/common';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type pg from 'pg';
import type { Logger } from 'pino';
import type { Observable } from 'rxjs';
import { DomainRuleError, ValidationFailedError } from '../../../core/errors.js';
import type { Principal } from '../authenticator.port.js';
import { IDEMPOTENCY_KEY_PATTERN, KEYED_METHODS, type KeptAnswer, REPLAYED_HEADERS, keepsAnswer, repeatOutcome, requestFingerprint } from './idempotency-key.js';
import { claimKey, keepAnswer, keptFor, releaseKey } from './idempotency.store.js';

/** The claim a request holds on its key, until its answer is kept. */
export interface IdempotencyClaim {
  readonly userId: string;
  readonly key: string;
  readonly requestId: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    idempotencyClaim: IdempotencyClaim | undefined;
  }
}

/** A repeat's answer: the first request's status, headers and body, sent as they were. */
export class IdempotentReplay extends Error {
  constructor(readonly answer: KeptAnswer) {
    super('idempotent replay');
  }
}

/**
 * Idempotency-Key on a write under /v1 (decision 0040). Runs after the credentials guard (a key
 * is the user's) and before the pipes, so even a refused body is answered the same way again.
 * The first request claims the key and runs; its answer is kept before it is sent (installIdempotency).
 */
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(private readonly pool: pg.Pool) {}

  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const key = request.headers['idempotency-key'];
    const principal = request.principal as Principal | undefined;
    if (key === undefined || principal === undefined || !KEYED_METHODS.has(request.method) || !request.url.startsWith('/v1/')) return next.handle();
    if (typeof key !== 'string' || !IDEMPOTENCY_KEY_PATTERN.test(key)) {
      throw new ValidationFailedError([{ code: 'invalid_string', message: 'Idempotency-Key must be 1 to 255 printable ASCII characters, sent once', path: ['Idempotency-Key'] }]);
    }
    const userId = principal.user.id;
    const fingerprint = requestFingerprint(request.method, request.url, request.body);
    // Twice at most: a key found gone between the claim and the read (its 24 hours just ended) is claimed again.
    for (let attempt = 0; attempt < 2; attempt += 1) {
      if (await claimKey(this.pool, userId, key, fingerprint, request.id)) {
        request.idempotencyClaim = { userId, key, requestId: request.id };
        return next.handle();
      }
      const kept = await keptFor(this.pool, userId, key);
      if (kept === null) continue;
      const outcome = repeatOutcome(kept, fingerprint);
      if (outcome.kind === 'replay') throw new IdempotentReplay(outcome.answer);
      if (outcome.kind === 'reused') throw new DomainRuleError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used with another method, path or body; use a new key for a new request.', 422);
      break;
    }
    throw new DomainRuleError('IDEMPOTENCY_KEY_IN_PROGRESS', 'A request with this Idempotency-Key is still running; retry in a moment for its answer.', 409);
  }
}

/** Keeps a claimed request's answer before it is sent; a server failure gives the key up instead. */
export function installIdempotency(fastify: FastifyInstance, pool: pg.Pool, log: Logger): void {
  fastify.decorateRequest('idempotencyClaim', undefined);
  fastify.addHook('onSend', async (request, reply, payload) => {
    const claim = request.idempotencyClaim;
    if (claim === undefined) return payload;
    request.idempotencyClaim = undefined;
    const body = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : payload === null || payload === undefined ? '' : null;
    try {
      if (!keepsAnswer(reply.statusCode) || body === null) {
        await releaseKey(pool, claim.userId, claim.key, claim.requestId);
      } else {
        const headers: Record<string, string> = {};
        for (const name of REPLAYED_HEADERS) {
          const value = reply.getHeader(name);
          if (value !== undefined) headers[name] = String(value);
        }
        await keepAnswer(pool, claim.userId, claim.key, claim.requestId, { status: reply.statusCode, body, headers });
      }
    } catch (error) {
      // The answer still goes out; the claim runs out and a repeat then runs the request again.
      log.warn({ err: error, requestId: request.id }, 'could not keep the answer of an Idempotency-Key');
    }
    return payload;
  });
}
