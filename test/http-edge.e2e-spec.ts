import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { RawHttpClient } from './support/raw-http.js';
import { startTestApp, type TestApp } from './support/test-app.js';

/**
 * What the HTTP edge answers whatever framework serves it (decision 0036): the service moved from
 * Express to Fastify, and each of these is something Fastify, left to its defaults, answers otherwise.
 */
let t: TestApp;
let key: string;
let raw: RawHttpClient;

beforeAll(async () => {
  t = await startTestApp();
  ({ key } = await t.newUser());
  raw = await RawHttpClient.listen(t.server);
});
afterAll(async () => {
  raw.close();
  await t.close();
});

interface Exchange {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly reusedSocket: boolean;
}

/** One request on `agent`, saying whether it went over a connection an earlier request left open. */
function exchange(agent: Agent, method: string, path: string, headers: Record<string, string>, body?: string): Promise<Exchange> {
  const port = (t.server.address() as AddressInfo).port;
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest({ host: '127.0.0.1', port, method, path, agent, headers: { ...headers, ...(body === undefined ? {} : { 'Content-Length': String(Buffer.byteLength(body)) }) } }, (incoming) => {
      incoming.resume();
      incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, reusedSocket: outgoing.reusedSocket }));
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

describe('the HTTP edge', () => {
  it('keeps a keep-alive connection open after refusing a body, as after any answer', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const json = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };
    try {
      const first = await exchange(agent, 'GET', '/v1/accounts', { Authorization: `Bearer ${key}` });
      expect(first.status).toBe(200);
      const refusals = [
        await exchange(agent, 'POST', '/v1/accounts', json, '{"name": '),
        await exchange(agent, 'POST', '/v1/accounts', json, JSON.stringify({ name: 'x'.repeat(1_100_000) })),
        await exchange(agent, 'POST', '/v1/accounts', { ...json, 'Content-Type': 'application/json; charset=latin1' }, '{}'),
        await exchange(agent, 'POST', '/v1/accounts', json, `${'['.repeat(40)}${']'.repeat(40)}`),
      ];
      const after = await exchange(agent, 'GET', '/v1/accounts', { Authorization: `Bearer ${key}` });
      expect([...refusals, after].map((answer) => [answer.status, answer.headers.connection, answer.reusedSocket])).toEqual([
        [400, 'keep-alive', true],
        [413, 'keep-alive', true],
        [415, 'keep-alive', true],
        [400, 'keep-alive', true],
        [200, 'keep-alive', true],
      ]);
    } finally {
      agent.destroy();
    }
  });

  it("answers a request Node cannot parse as Node does, closing the connection so that it is not reused", async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const overflow = await exchange(agent, 'GET', '/v1/accounts', { Authorization: `Bearer ${key}`, 'X-Padding': 'p'.repeat(20_000) });
      expect([overflow.status, overflow.headers.connection]).toEqual([431, 'close']);
      const next = await exchange(agent, 'GET', '/v1/accounts', { Authorization: `Bearer ${key}` });
      expect([next.status, next.reusedSocket]).toEqual([200, false]);
    } finally {
      agent.destroy();
    }
  });

  it("keeps Node's own server timeouts: 5 s keep-alive, 300 s to receive a request", () => {
    expect([t.server.keepAliveTimeout, t.server.requestTimeout]).toEqual([5_000, 300_000]);
  });

  it('matches routes whatever their case and with a trailing slash', async () => {
    await t.as(key).post('/v1/accounts', { name: 'Checking', type: 'bank', subtype: 'checking', currentBalance: 1 }).expect(201);
    for (const path of ['/V1/Accounts', '/v1/accounts/']) {
      const response = await request(t.server).get(path).set('Authorization', `Bearer ${key}`).expect(200);
      expect(response.body.accounts).toHaveLength(1);
    }
  });

  it('answers an unknown route outside /v1 with the nested JSON 404 too (Express answered its own HTML page there)', async () => {
    const response = await request(t.server).get('/nope?x=1').expect(404);
    expect([response.headers['content-type'], response.body]).toEqual(['application/json; charset=utf-8', { error: { code: 'NOT_FOUND', message: 'No route for GET /nope' } }]);
  });

  it('gives a long path segment to its route, which answers its own 404', async () => {
    const response = await raw.send({ method: 'GET', target: `/v1/transactions/${'a'.repeat(150)}`, headers: { Authorization: `Bearer ${key}` } });
    expect([response.status, response.body]).toEqual([404, { code: 'NOT_FOUND', error: 'Transaction not found' }]);
  });

  it('answers a path that is not valid percent-encoded UTF-8 with a flat 404 and the request id', async () => {
    const response = await request(t.server).get('/v1/transactions/%ED%A0%80').set('Authorization', `Bearer ${key}`).set('X-Request-Id', 'bad-path-1').expect(404);
    expect(response.body).toEqual({ code: 'NOT_FOUND', error: 'Nothing is found at a path that is not valid percent-encoded UTF-8.' });
    expect([response.headers['x-request-id'], response.headers['x-correlation-id']]).toEqual(['bad-path-1', 'bad-path-1']);
  });

  it('leaves unread a body it does not take, whatever its Content-Type says', async () => {
    const auth = { Authorization: `Bearer ${key}` };
    for (const contentType of ['', 'nonsense', 'text/plain;;', 'application/x-www-form-urlencoded']) {
      const post = await raw.send({ method: 'POST', target: '/v1/accounts', headers: { ...auth, 'Content-Type': contentType }, body: '{"name":"x"}' });
      expect([contentType, post.status]).toEqual([contentType, 422]);
    }
    const account = await t.as(key).post('/v1/accounts', { name: 'Gone', type: 'bank', subtype: 'checking', currentBalance: 1 }).expect(201);
    const deleted = await raw.send({ method: 'DELETE', target: `/v1/accounts/${account.body.id}`, headers: { ...auth, 'Content-Type': 'nonsense' }, body: '{"malformed": ' });
    expect(deleted.status).toBe(200);
  });

  it('reads a gzip-encoded JSON body', async () => {
    const { gzipSync } = await import('node:zlib');
    const body = gzipSync(JSON.stringify({ name: 'Zipped', type: 'bank', subtype: 'checking', currentBalance: 1 }));
    const response = await raw.send({ method: 'POST', target: '/v1/accounts', headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' }, body });
    expect([response.status, (response.body as { name: string }).name]).toEqual([201, 'Zipped']);
  });

  it('serves the API reference page, its script and its files with the types it always had', async () => {
    const types = [];
    for (const path of ['/v1/docs', '/v1/docs/', '/v1/docs/swagger-ui-init.js', '/v1/docs/swagger-ui-bundle.js', '/v1/docs/swagger-ui.css']) {
      const response = await request(t.server).get(path).expect(200);
      types.push([path, response.headers['content-type']]);
    }
    expect(types).toEqual([
      ['/v1/docs', 'text/html; charset=utf-8'],
      ['/v1/docs/', 'text/html; charset=utf-8'],
      ['/v1/docs/swagger-ui-init.js', 'application/javascript; charset=utf-8'],
      ['/v1/docs/swagger-ui-bundle.js', 'text/javascript; charset=utf-8'],
      ['/v1/docs/swagger-ui.css', 'text/css; charset=utf-8'],
    ]);
  });
});
