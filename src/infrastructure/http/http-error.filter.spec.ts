import { Writable } from 'node:stream';
import type { ArgumentsHost } from '@nestjs/common';
import { DomainRuleError, NotFoundError, ValidationFailedError } from '../../core/errors.js';
import { createLogger } from '../logging/logger.js';
import { HttpErrorFilter } from './http-error.filter.js';
import { BodyTooDeepError } from './request-body-limits.js';

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { lines, log: createLogger('info', stream) };
}

function respond(filter: HttpErrorFilter, error: unknown) {
  const sent: { status?: number; body?: unknown; headers: Record<string, string> } = { headers: {} };
  const reply = {
    sent: false,
    raw: { headersSent: false },
    hasHeader: (name: string) => name in sent.headers,
    header(name: string, value: string) {
      sent.headers[name] = value;
      return this;
    },
    code(status: number) {
      sent.status = status;
      return this;
    },
    send(body: unknown) {
      sent.body = body;
    },
  };
  const request = { id: 'req-1', correlationId: 'req-1', method: 'GET', url: '/v1/x', originalUrl: '/v1/x' };
  const host = { switchToHttp: () => ({ getRequest: () => request, getResponse: () => reply }) } as unknown as ArgumentsHost;
  filter.catch(error, host);
  return { status: sent.status, body: sent.body };
}

describe('HTTP error filter', () => {
  it('answers an unexpected error with a bare 500 and logs it with the request id', () => {
    const { lines, log } = capture();
    const sent = respond(new HttpErrorFilter(log), new Error('relation "transactions" does not exist: SELECT * FROM transactions'));
    expect(sent).toEqual({ status: 500, body: { error: { code: 'INTERNAL', message: 'Internal server error' } } });
    expect(JSON.stringify(sent.body)).not.toMatch(/SELECT|relation|at /);
    expect(lines.join('')).toContain('req-1');
  });

  it('maps domain errors to their documented shapes', () => {
    const { log } = capture();
    const filter = new HttpErrorFilter(log);
    expect(respond(filter, new NotFoundError('Transaction'))).toEqual({ status: 404, body: { code: 'NOT_FOUND', error: 'Transaction not found' } });
    expect(respond(filter, new DomainRuleError('ACCOUNT_NOT_MANUAL', 'No.'))).toEqual({ status: 400, body: { code: 'ACCOUNT_NOT_MANUAL', error: 'No.' } });
    expect(respond(filter, new DomainRuleError('CONCURRENT_MODIFICATION', 'Again.', 409)).status).toBe(409);
    expect(respond(filter, new ValidationFailedError([{ code: 'too_big', message: 'm', path: ['tagIds', 2] }]))).toEqual({
      status: 422,
      body: { success: false, error: { name: 'ValidationError', issues: [{ code: 'too_big', message: 'm', path: ['tagIds', 2] }] } },
    });
  });

  it('answers what the edge refuses before any controller runs with flat 4xx bodies', () => {
    const { log } = capture();
    const filter = new HttpErrorFilter(log);
    expect(respond(filter, new BodyTooDeepError())).toEqual({ status: 400, body: { code: 'BAD_REQUEST', error: expect.stringContaining('32') } });
    expect(respond(filter, Object.assign(new Error('too big'), { type: 'entity.too.large', status: 413, expose: true }))).toEqual({
      status: 413,
      body: { code: 'PAYLOAD_TOO_LARGE', error: 'The request body is larger than 1 MB.' },
    });
    const undecodable = Object.assign(new Error("'/v1/transactions/%E0%A4%A' is not a valid url component"), { code: 'FST_ERR_BAD_URL', statusCode: 400 });
    expect(respond(filter, undecodable)).toEqual({ status: 404, body: { code: 'NOT_FOUND', error: expect.any(String) } });
    expect(respond(filter, Object.assign(new Error('request aborted'), { type: 'request.aborted', status: 400, expose: true }))).toEqual({
      status: 400,
      body: { code: 'BAD_REQUEST', error: 'The request could not be read.' },
    });
    expect(respond(filter, Object.assign(new Error('Unsupported Media Type'), { code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE', statusCode: 415 }))).toEqual({
      status: 415,
      body: { code: 'UNSUPPORTED_MEDIA_TYPE', error: 'The request could not be read.' },
    });
  });
});
