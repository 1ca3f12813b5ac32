import net from 'node:net';
import { OAuth2Server } from 'oauth2-mock-server';

export interface ProviderUser {
  readonly sub: string;
  readonly email?: string;
  readonly email_verified?: boolean;
  readonly name?: string;
}

/** A real OAuth 2.0 / OIDC server on localhost (oauth2-mock-server), steerable per sign-in. */
export interface TestOAuthProvider {
  readonly url: string;
  /** `OAUTH_<NAME>_*` settings pointing at this server. */
  env(name: string, overrides?: Partial<Record<'AUTHORIZATION_URL' | 'TOKEN_URL' | 'USERINFO_URL' | 'TRUST_EMAIL', string>>): Record<string, string>;
  /** Who the userinfo endpoint says signed in, from now on. */
  signInAs(user: ProviderUser): void;
  /** The next consent screen is declined: the provider redirects back with error=access_denied. */
  declineNextConsent(): void;
  /** The userinfo endpoint answers this status (e.g. 503) until told otherwise. */
  failUserinfo(status: number | null): void;
  /** Follows the authorize URL as the browser would, returning where the provider redirects it. */
  authorize(url: string): Promise<URL>;
  stop(): Promise<void>;
}

export async function startOAuthProvider(): Promise<TestOAuthProvider> {
  const server = new OAuth2Server();
  await server.issuer.keys.generate('RS256');
  await server.start(0, '127.0.0.1');
  const url = server.issuer.url as string;
  let user: ProviderUser = { sub: 'subject-1' };
  let declineNext = false;
  let userinfoStatus: number | null = null;
  server.service.on('beforeUserinfo', (response: { body: unknown; statusCode: number }) => {
    response.body = userinfoStatus === null ? { ...user } : { error: 'temporarily_unavailable' };
    response.statusCode = userinfoStatus ?? 200;
  });
  server.service.on('beforeAuthorizeRedirect', (redirect: { url: URL }) => {
    if (!declineNext) return;
    declineNext = false;
    redirect.url.searchParams.delete('code');
    redirect.url.searchParams.set('error', 'access_denied');
    redirect.url.searchParams.set('error_description', 'The user declined.');
  });
  return {
    url,
    env: (name, overrides = {}) => ({
      [`OAUTH_${name}_CLIENT_ID`]: 'ledgerline-test-client',
      [`OAUTH_${name}_CLIENT_SECRET`]: 'ledgerline-test-secret',
      [`OAUTH_${name}_AUTHORIZATION_URL`]: overrides.AUTHORIZATION_URL ?? `${url}/authorize`,
      [`OAUTH_${name}_TOKEN_URL`]: overrides.TOKEN_URL ?? `${url}/token`,
      [`OAUTH_${name}_USERINFO_URL`]: overrides.USERINFO_URL ?? `${url}/userinfo`,
      ...(overrides.TRUST_EMAIL === undefined ? {} : { [`OAUTH_${name}_TRUST_EMAIL`]: overrides.TRUST_EMAIL }),
    }),
    signInAs: (next) => {
      user = next;
    },
    declineNextConsent: () => {
      declineNext = true;
    },
    failUserinfo: (status) => {
      userinfoStatus = status;
    },
    async authorize(authorizeUrl) {
      const response = await fetch(authorizeUrl, { redirect: 'manual' });
      const location = response.headers.get('location');
      if (response.status !== 302 || !location) throw new Error(`The provider answered ${response.status} to the authorize request: ${await response.text()}`);
      return new URL(location);
    },
    stop: () => server.stop(),
  };
}

/** A local port nothing listens on: a provider that is down. */
export async function closedPort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}
