import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { BodyTooDeepError, MAX_BODY_BYTES } from './request-body-limits.js';
import { readRequestBody, type RequestBody, RequestBodyError } from './request-body.reader.js';

/** A request as Node hands it over: headers, then the body's bytes as a stream. */
function incoming(method: string, headers: Record<string, string>, body?: Buffer | string): IncomingMessage {
  const stream = new PassThrough();
  const bytes = body === undefined ? undefined : Buffer.from(body);
  const request = Object.assign(stream, { method, headers: { ...(bytes ? { 'content-length': String(bytes.length) } : {}), ...headers }, complete: false });
  stream.on('end', () => (request.complete = true));
  setImmediate(() => stream.end(bytes));
  return request as unknown as IncomingMessage;
}

const json = { 'content-type': 'application/json' };
const refusal = (body: RequestBody) => (body.kind === 'refused' ? body.error : null);

describe('reading a request body', () => {
  it('parses JSON of any kind on POST, PUT and PATCH and keeps its bytes', async () => {
    expect(await readRequestBody(incoming('POST', json, '{"name":"x"}'))).toEqual({ kind: 'json', value: { name: 'x' }, raw: Buffer.from('{"name":"x"}') });
    expect(await readRequestBody(incoming('PATCH', { 'content-type': 'Application/JSON; charset=UTF-8' }, '[1]'))).toMatchObject({ kind: 'json', value: [1] });
    expect(await readRequestBody(incoming('PUT', json, '"x"'))).toMatchObject({ kind: 'json', value: 'x' });
  });

  it('takes an empty JSON body as an empty object, and a body it does not read as none', async () => {
    expect(await readRequestBody(incoming('POST', json, ''))).toMatchObject({ kind: 'json', value: {} });
    expect(await readRequestBody(incoming('POST', { 'content-type': 'text/plain' }, '{"a":1}'))).toEqual({ kind: 'none' });
    expect(await readRequestBody(incoming('DELETE', json, '{"a":1}'))).toEqual({ kind: 'none' });
    expect(await readRequestBody(incoming('POST', json))).toEqual({ kind: 'none' });
  });

  it('refuses malformed JSON (400), a body nested past the limit (400) and a body over 1 MB (413)', async () => {
    expect(refusal(await readRequestBody(incoming('POST', json, '{"name": ')))).toMatchObject({ status: 400, type: 'entity.parse.failed' });
    expect(refusal(await readRequestBody(incoming('POST', json, `${'['.repeat(100_000)}${']'.repeat(100_000)}`)))).toBeInstanceOf(BodyTooDeepError);
    expect(refusal(await readRequestBody(incoming('POST', json, `"${'x'.repeat(MAX_BODY_BYTES)}"`)))).toMatchObject({ status: 413, type: 'entity.too.large' });
  });

  it('refuses a body whose length is not what Content-Length said (400)', async () => {
    expect(refusal(await readRequestBody(incoming('POST', { ...json, 'content-length': '100' }, '{}')))).toMatchObject({ status: 400, type: 'request.size.invalid' });
  });

  it('reads a UTF charset and refuses any other (415)', async () => {
    const utf16 = Buffer.from('{"name":"é"}', 'utf16le');
    expect(await readRequestBody(incoming('POST', { 'content-type': 'application/json; charset=utf-16le' }, utf16))).toMatchObject({ kind: 'json', value: { name: 'é' } });
    for (const charset of ['latin1', 'utf-9', '"iso-8859-1"']) {
      const error = refusal(await readRequestBody(incoming('POST', { 'content-type': `application/json; charset=${charset}` }, '{}')));
      expect([charset, error instanceof RequestBodyError && error.status, (error as RequestBodyError).type]).toEqual([charset, 415, 'charset.unsupported']);
    }
  });

  it('inflates gzip, refuses an unknown encoding (415) and bytes that are not what they claim (400)', async () => {
    expect(await readRequestBody(incoming('POST', { ...json, 'content-encoding': 'gzip' }, gzipSync('{"a":1}')))).toMatchObject({ kind: 'json', value: { a: 1 } });
    expect(refusal(await readRequestBody(incoming('POST', { ...json, 'content-encoding': 'br2' }, '{}')))).toMatchObject({ status: 415, type: 'encoding.unsupported' });
    expect(refusal(await readRequestBody(incoming('POST', { ...json, 'content-encoding': 'gzip' }, '{}')))).toMatchObject({ status: 400, expose: true });
  });
});
