import { Writable } from 'node:stream';
import { createLogger } from './logger.js';

/** A parsed log line, walked field by field in the assertions. */
type LogLine = { readonly [field: string]: LogLine };

/** A logger writing into memory; `lines()` parses what it wrote. */
function memoryLogger() {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  const log = createLogger('info', stream);
  return { log, text: () => chunks.join(''), lines: () => chunks.join('').trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>) };
}

const SECRETS = {
  key: 'pf_live_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789ABCD',
  session: 'c2Vzc2lvbi10b2tlbi1zZWNyZXQtdmFsdWUtMTIzNDU2Nzg5',
  code: 'oauth-code-7f3a9b',
  state: 'oauth-state-51c0de',
  verifier: 'pkce-verifier-0e8d2c4b6a',
  accessToken: 'provider-access-token-93ab',
  clientSecret: 'client-secret-d41d8c',
};

describe('the logger keeps secrets out of log lines', () => {
  it('redacts credential, session and OAuth fields at the top, one level down and in headers', () => {
    const { log, text, lines } = memoryLogger();
    log.info({ key: SECRETS.key, token: SECRETS.session, code: SECRETS.code, state: SECRETS.state, codeVerifier: SECRETS.verifier }, 'top level');
    log.info({ signIn: { state: SECRETS.state, code_verifier: SECRETS.verifier, accessToken: SECRETS.accessToken, clientSecret: SECRETS.clientSecret, sessionId: SECRETS.session } }, 'nested');
    log.info({ headers: { authorization: `Bearer ${SECRETS.key}`, cookie: `pf_session=${SECRETS.session}` }, query: { code: SECRETS.code } }, 'headers');
    for (const secret of Object.values(SECRETS)) expect(text()).not.toContain(secret);
    expect(lines()[0]).toMatchObject({ key: '[redacted]', code: '[redacted]', state: '[redacted]', codeVerifier: '[redacted]' });
    expect(lines()[1]).toMatchObject({ signIn: { state: '[redacted]', code_verifier: '[redacted]', accessToken: '[redacted]' } });
  });

  it('removes code, state and tokens from URL query strings wherever they appear, keeping the rest of the URL', () => {
    const { log, text, lines } = memoryLogger();
    const url = `/api/auth/callback/google?code=${SECRETS.code}&state=${SECRETS.state}&scope=email`;
    log.info({ url, nested: { location: `https://app.example.com/done?state=${SECRETS.state}` } }, `redirected from ${url}`);
    log.error({ err: new Error(`token exchange failed for https://idp.example.com/token?code=${SECRETS.code}&code_verifier=${SECRETS.verifier}`) }, 'failed');
    for (const secret of Object.values(SECRETS)) expect(text()).not.toContain(secret);
    expect(lines()[0].url).toBe('/api/auth/callback/google?code=[redacted]&state=[redacted]&scope=email');
  });

  it('redacts authorization, cookie, set-cookie, key, apiKey, token, access_token, refresh_token, secret, client_secret, password and code_verifier at any depth', () => {
    const { log, text, lines } = memoryLogger();
    const secret = (name: string) => `deep-secret-of-${name}-7c1e`;
    const names = ['authorization', 'cookie', 'set-cookie', 'key', 'apiKey', 'token', 'access_token', 'refresh_token', 'secret', 'client_secret', 'password', 'code_verifier'];
    const leaf = Object.fromEntries(names.map((name) => [name, secret(name)]));
    const deep = { a: { b: { c: { d: { e: { f: leaf } } } } } };
    log.info({ request: { headers: { Authorization: secret('Authorization'), 'Set-Cookie': [secret('Set-Cookie')] } }, deep, list: [{ items: [leaf] }] }, 'deep');
    log.child({ provider: { config: { clientSecret: secret('child-binding') } } }).warn({ upstream: { response: { body: { access_token: secret('body') } } } }, 'child');
    log.child({ requestId: 'r-1' }).child({ auth: { headers: { cookie: secret('grandchild') } } }).info('grandchild');
    for (const name of [...names, 'Authorization', 'Set-Cookie', 'child-binding', 'body', 'grandchild']) expect(text()).not.toContain(secret(name));
    const [first, second, third] = lines() as LogLine[];
    expect(third).toMatchObject({ requestId: 'r-1', auth: { headers: { cookie: '[redacted]' } } });
    expect(first.deep.a.b.c.d.e.f).toEqual(Object.fromEntries(names.map((name) => [name, '[redacted]'])));
    expect(first.request.headers).toEqual({ Authorization: '[redacted]', 'Set-Cookie': '[redacted]' });
    expect(first.list[0].items[0].apiKey).toBe('[redacted]');
    expect(second.provider.config.clientSecret).toBe('[redacted]');
  });

  it("walks an error's own fields and its cause, and leaves other fields as they were", () => {
    const { log, text, lines } = memoryLogger();
    const cause = Object.assign(new Error('upstream said no'), { config: { headers: { authorization: 'Bearer cause-secret-11' } } });
    const error = Object.assign(new Error('sign-in failed', { cause }), { request: { body: { client_secret: 'error-secret-22' } }, status: 502 });
    log.error({ err: error, amount: 12.5, tags: ['a', 'b'], when: new Date('2026-01-01T00:00:00Z'), nothing: null }, 'failed');
    expect(text()).not.toContain('cause-secret-11');
    expect(text()).not.toContain('error-secret-22');
    const [line] = lines() as LogLine[];
    expect(line.err).toMatchObject({ type: 'Error', message: expect.stringContaining('sign-in failed'), status: 502, request: { body: { client_secret: '[redacted]' } } });
    expect(line.err.stack).toContain('sign-in failed');
    expect(line).toMatchObject({ amount: 12.5, tags: ['a', 'b'], when: '2026-01-01T00:00:00.000Z', nothing: null });
  });

  it('bounds the walk: a structure too deep is cut off below the bound, and a cycle is named', () => {
    const { log, text, lines } = memoryLogger();
    let nested: Record<string, unknown> = { token: 'bottom-secret-33' };
    for (let level = 0; level < 50; level += 1) nested = { next: nested };
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;
    log.info({ nested, cyclic }, 'shapes');
    expect(text()).not.toContain('bottom-secret-33');
    const [line] = lines() as LogLine[];
    expect(JSON.stringify(line.nested)).toContain('[too deep]');
    expect(line.cyclic).toEqual({ name: 'loop', self: '[circular]' });
  });

  it("keeps an error's own code (a network or database code) readable", () => {
    const { log, lines } = memoryLogger();
    log.error({ err: Object.assign(new Error('connect failed'), { code: 'ECONNREFUSED' }) }, 'provider unreachable');
    expect(lines()[0]).toMatchObject({ err: { code: 'ECONNREFUSED' } });
  });
});
