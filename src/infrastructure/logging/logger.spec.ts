import { Writable } from 'node:stream';
import { createLogger } from './logger.js';

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

  it("keeps an error's own code (a network or database code) readable", () => {
    const { log, lines } = memoryLogger();
    log.error({ err: Object.assign(new Error('connect failed'), { code: 'ECONNREFUSED' }) }, 'provider unreachable');
    expect(lines()[0]).toMatchObject({ err: { code: 'ECONNREFUSED' } });
  });
});
