import { type CallHandler, type ExecutionContext, type NestInterceptor, SetMetadata } from '@nestjs/common';
import type { Reflector } from '@nestjs/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type pg from 'pg';
import type { Logger } from 'pino';
import { catchError, from, type Observable } from 'rxjs';
import { DomainRuleError, ValidationFailedError } from '../../../core/errors.js';
import type { AppendClaim } from '../../event-store/event-store.port.js';
import type { Principal } from '../authenticator.port.js';
import { flatError } from '../error-bodies.js';
import { IDEMPOTENCY_KEY_PATTERN, KEYED_METHODS, type KeptAnswer, REPLAYED_HEADERS, keepsAnswer, repeatOutcome, requestFingerprint } from './idempotency-key.js';
import { claimAnswered, claimCondition, claimKey, type KeyClaim, keepAnswer, keptFor, releaseKey } from './idempotency.store.js';

/** The claim a request holds (or will make with its first append) on its key, until its answer is kept. */
export interface IdempotencyClaim extends KeyClaim {
  /** Made with the request's first append (`claimWithAppend`), not before the request ran. */
  readonly withAppend: AppendClaim | null;
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

/** The key was claimed by another request when this one came to append: nothing was appended. */
class KeyClaimedMeanwhile extends Error {
  constructor() {
    super('the Idempotency-Key was claimed by another request');
  }
}

const CLAIMS_WITH_ITS_APPEND = 'ledgerline:idempotency-claims-with-its-append';

/**
 * Marks a write whose only effect is appends through handleCommand: its key is claimed in its first
 * append's own transaction (one statement fewer, and the claim commits with the write it guards),
 * not before it runs. A write with any other effect (a table, a provider) claims before it runs.
 */
export const ClaimsKeyWithItsAppend = () => SetMetadata(CLAIMS_WITH_ITS_APPEND, true);

const REUSED = () => new DomainRuleError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used with another method, path or body; use a new key for a new request.', 422);
const IN_PROGRESS = () => new DomainRuleError('IDEMPOTENCY_KEY_IN_PROGRESS', 'A request with this Idempotency-Key is still running; retry in a moment for its answer.', 409);

/**
 * Idempotency-Key on a write under /v1 (decision 0040). Runs after the credentials guard (a key
 * is the user's) and before the pipes, so even a refused body is answered the same way again.
 * The first request claims the key and runs; its answer is kept before it is sent (installIdempotency).
 */
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(
    private readonly pool: pg.Pool,
    private readonly reflector: Reflector,
    /** Whether the event store checks guards in the append's own transaction (PostgreSQL). */
    private readonly claimsInAppends: boolean,
  ) {}

  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const key = request.headers['idempotency-key'];
    const principal = request.principal as Principal | undefined;
    if (key === undefined || principal === undefined || !KEYED_METHODS.has(request.method) || !request.url.startsWith('/v1/')) return next.handle();
    if (typeof key !== 'string' || !IDEMPOTENCY_KEY_PATTERN.test(key)) {
      throw new ValidationFailedError([{ code: 'invalid_string', message: 'Idempotency-Key must be 1 to 255 printable ASCII characters, sent once', path: ['Idempotency-Key'] }]);
    }
    const claim: KeyClaim = { userId: principal.user.id, key, fingerprint: requestFingerprint(request.method, request.url, request.body), requestId: request.id };
    if (this.claimsInAppends && this.reflector.get<boolean>(CLAIMS_WITH_ITS_APPEND, context.getHandler()) === true) {
      const withAppend: AppendClaim = { guard: { condition: claimCondition(claim), refusal: () => new KeyClaimedMeanwhile() }, claimed: false };
      request.idempotencyClaim = { ...claim, withAppend };
      return next.handle().pipe(
        catchError((error: unknown) => {
          if (!(error instanceof KeyClaimedMeanwhile)) throw error;
          request.idempotencyClaim = undefined;
          return from(answerOfRepeat(this.pool, claim));
        }),
      );
    }
    // Twice at most: a key found gone between the claim and the read (its 24 hours just ended) is claimed again.
    for (let attempt = 0; attempt < 2; attempt += 1) {
      if (await claimKey(this.pool, claim)) {
        request.idempotencyClaim = { ...claim, withAppend: null };
        return next.handle();
      }
      const kept = await keptFor(this.pool, claim.userId, key);
      if (kept !== null) throw repeatError(repeatOutcome(kept, claim.fingerprint));
    }
    throw IN_PROGRESS();
  }
}

function repeatError(outcome: ReturnType<typeof repeatOutcome>): Error {
  if (outcome.kind === 'replay') return new IdempotentReplay(outcome.answer);
  return outcome.kind === 'reused' ? REUSED() : IN_PROGRESS();
}

/** What a request is told when its key is another's: that one's answer, or why it has none for it. */
async function answerOfRepeat(pool: pg.Pool, claim: KeyClaim): Promise<never> {
  const kept = await keptFor(pool, claim.userId, claim.key);
  throw kept === null ? IN_PROGRESS() : repeatError(repeatOutcome(kept, claim.fingerprint));
}

/**
 * Keeps a claimed request's answer before it is sent; a server failure gives the key up instead.
 * A request that was to claim with its append but appended nothing claims and keeps in one
 * statement; if another request holds the key by then, this one is answered as a repeat.
 */
export function installIdempotency(fastify: FastifyInstance, pool: pg.Pool, log: Logger): void {
  fastify.decorateRequest('idempotencyClaim', undefined);
  fastify.addHook('onSend', async (request, reply, payload) => {
    const claim = request.idempotencyClaim;
    if (claim === undefined) return payload;
    request.idempotencyClaim = undefined;
    const body = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : payload === null || payload === undefined ? '' : null;
    const claimedBefore = claim.withAppend === null || claim.withAppend.claimed;
    try {
      if (!keepsAnswer(reply.statusCode) || body === null) {
        if (claimedBefore) await releaseKey(pool, claim.userId, claim.key, claim.requestId);
        return payload;
      }
      const answer = { status: reply.statusCode, body, headers: replayedHeadersOf(reply) };
      if (claimedBefore) await keepAnswer(pool, claim.userId, claim.key, claim.requestId, answer);
      else if (!(await claimAnswered(pool, claim, answer))) return await answerAsRepeat(pool, claim, reply);
    } catch (error) {
      // The answer still goes out; the claim runs out and a repeat then runs the request again.
      log.warn({ err: error, requestId: request.id }, 'could not keep the answer of an Idempotency-Key');
    }
    return payload;
  });
}

/** Replaces a request's own answer by the one its key holds (it appended nothing: its answer was only a read). */
async function answerAsRepeat(pool: pg.Pool, claim: KeyClaim, reply: FastifyReply): Promise<string> {
  const kept = await keptFor(pool, claim.userId, claim.key);
  const outcome = kept === null ? null : repeatOutcome(kept, claim.fingerprint);
  if (outcome?.kind === 'replay') {
    for (const [name, value] of Object.entries(outcome.answer.headers)) reply.header(name, value);
    reply.header('Idempotent-Replayed', 'true').code(outcome.answer.status);
    return outcome.answer.body;
  }
  const refusal = outcome?.kind === 'reused' ? REUSED() : IN_PROGRESS();
  reply.removeHeader('etag');
  reply.header('content-type', 'application/json; charset=utf-8').code(refusal.status);
  return JSON.stringify(flatError(refusal.code, refusal.message));
}

function replayedHeadersOf(reply: FastifyReply): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of REPLAYED_HEADERS) {
    const value = reply.getHeader(name);
    if (value !== undefined) headers[name] = String(value);
  }
  return headers;
}
