import { sessionCookiePolicy } from './session-cookie.js';

describe('the session cookie policy', () => {
  it('is Secure unless PUBLIC_URL is plain http on localhost, 127.0.0.1 or [::1]', () => {
    for (const local of ['http://localhost:3000', 'http://127.0.0.1:8080/', 'http://[::1]:3000', 'http://LOCALHOST']) expect([local, sessionCookiePolicy(local).secure]).toEqual([local, false]);
    for (const remote of ['https://localhost:3000', 'https://api.example.com', 'http://api.example.com', 'http://ledgerline.test', 'http://localhost.example.com', 'http://10.0.0.5:3000', 'http://127.0.0.2']) {
      expect([remote, sessionCookiePolicy(remote).secure]).toEqual([remote, true]);
    }
  });
});
