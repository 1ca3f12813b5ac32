import { clearCookie, setCookieLine } from './set-cookie.js';

describe('Set-Cookie lines', () => {
  const now = Date.UTC(2026, 0, 1);

  it('writes a cookie as the service always has: Max-Age in whole seconds, Expires at now + max age, then the flags', () => {
    expect(setCookieLine('pf_session', 'abc_DEF-1.2~x', { httpOnly: true, sameSite: 'Lax', secure: true, path: '/', maxAgeMs: 30 * 86_400_000 + 999 }, now)).toBe(
      'pf_session=abc_DEF-1.2~x; Max-Age=2592000; Path=/; Expires=Sat, 31 Jan 2026 00:00:00 GMT; HttpOnly; Secure; SameSite=Lax',
    );
  });

  it('clears a cookie with an empty value expiring at the epoch, without Max-Age', () => {
    expect(setCookieLine('pf_sign_in', '', { httpOnly: true, sameSite: 'Lax', secure: false, path: '/api/auth' }, now)).toBe('pf_sign_in=; Path=/api/auth; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Lax');
  });

  it('percent-encodes what a cookie value cannot hold', () => {
    expect(setCookieLine('x', 'a b/c=', { httpOnly: false, sameSite: 'Lax', secure: false, path: '/' }, now)).toMatch(/^x=a%20b%2Fc%3D; /);
  });

  it('adds a line per cookie on the reply', () => {
    const lines: string[] = [];
    const reply = { header: (name: string, value: string) => lines.push(`${name}: ${value}`) };
    clearCookie(reply, 'a', { httpOnly: true, sameSite: 'Lax', secure: false, path: '/' });
    clearCookie(reply, 'b', { httpOnly: true, sameSite: 'Lax', secure: false, path: '/' });
    expect(lines).toEqual(['Set-Cookie: a=; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Lax', 'Set-Cookie: b=; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Lax']);
  });
});
