import { loadConfig } from './config.js';
import { loadOAuthProviders } from './oauth-providers.js';

describe('sign-in providers from the environment', () => {
  it('builds the google and github presets from a client id and secret alone', () => {
    const providers = loadOAuthProviders({
      OAUTH_GOOGLE_CLIENT_ID: 'g-id',
      OAUTH_GOOGLE_CLIENT_SECRET: 'g-secret',
      OAUTH_GITHUB_CLIENT_ID: 'gh-id',
      OAUTH_GITHUB_CLIENT_SECRET: 'gh-secret',
    });
    expect(providers).toEqual([
      {
        name: 'github',
        clientId: 'gh-id',
        clientSecret: 'gh-secret',
        authorizationUrl: 'https://github.com/login/oauth/authorize',
        tokenUrl: 'https://github.com/login/oauth/access_token',
        userinfoUrl: 'https://api.github.com/user',
        scope: 'read:user user:email',
        profileDialect: 'github',
        trustEmail: false,
      },
      {
        name: 'google',
        clientId: 'g-id',
        clientSecret: 'g-secret',
        authorizationUrl: 'https://accounts.google.com/o/oauth2/v2/auth',
        tokenUrl: 'https://oauth2.googleapis.com/token',
        userinfoUrl: 'https://openidconnect.googleapis.com/v1/userinfo',
        scope: 'openid email profile',
        profileDialect: 'oidc',
        trustEmail: true,
      },
    ]);
  });

  it('builds any number of generic providers, named by the lower-cased NAME', () => {
    const providers = loadOAuthProviders({
      OAUTH_CORP_SSO_CLIENT_ID: 'id',
      OAUTH_CORP_SSO_CLIENT_SECRET: 'secret',
      OAUTH_CORP_SSO_AUTHORIZATION_URL: 'https://sso.example.com/authorize',
      OAUTH_CORP_SSO_TOKEN_URL: 'https://sso.example.com/token',
      OAUTH_CORP_SSO_USERINFO_URL: 'https://sso.example.com/userinfo',
      OAUTH_CORP_SSO_SCOPE: 'openid email',
      OAUTH_KEYCLOAK_CLIENT_ID: 'kc',
      OAUTH_KEYCLOAK_CLIENT_SECRET: 'kc-secret',
      OAUTH_KEYCLOAK_AUTHORIZATION_URL: 'http://localhost:8080/auth',
      OAUTH_KEYCLOAK_TOKEN_URL: 'http://localhost:8080/token',
      OAUTH_KEYCLOAK_USERINFO_URL: 'http://localhost:8080/userinfo',
    });
    expect(providers.map((provider) => [provider.name, provider.scope, provider.profileDialect])).toEqual([
      ['corp_sso', 'openid email', 'oidc'],
      ['keycloak', 'openid email profile', 'oidc'],
    ]);
  });

  it('trusts a provider for email only when told to (google by default, github and custom providers not)', () => {
    const custom = (trust?: string) => ({
      OAUTH_CORP_CLIENT_ID: 'id',
      OAUTH_CORP_CLIENT_SECRET: 's',
      OAUTH_CORP_AUTHORIZATION_URL: 'https://sso.example.com/authorize',
      OAUTH_CORP_TOKEN_URL: 'https://sso.example.com/token',
      OAUTH_CORP_USERINFO_URL: 'https://sso.example.com/userinfo',
      ...(trust === undefined ? {} : { OAUTH_CORP_TRUST_EMAIL: trust }),
    });
    expect(loadOAuthProviders(custom())[0].trustEmail).toBe(false);
    expect(loadOAuthProviders(custom('true'))[0].trustEmail).toBe(true);
    expect(loadOAuthProviders(custom('FALSE'))[0].trustEmail).toBe(false);
    expect(loadOAuthProviders({ OAUTH_GOOGLE_CLIENT_ID: 'id', OAUTH_GOOGLE_CLIENT_SECRET: 's', OAUTH_GOOGLE_TRUST_EMAIL: 'false' })[0].trustEmail).toBe(false);
    expect(loadOAuthProviders({ OAUTH_GITHUB_CLIENT_ID: 'id', OAUTH_GITHUB_CLIENT_SECRET: 's', OAUTH_GITHUB_TRUST_EMAIL: 'true' })[0].trustEmail).toBe(true);
    expect(() => loadOAuthProviders(custom('yes'))).toThrow('OAUTH_CORP_TRUST_EMAIL must be true or false, got "yes".');
  });

  it('refuses, in a sentence naming the variable, a missing secret, a missing URL, a bad URL and a misspelt setting', () => {
    expect(() => loadOAuthProviders({ OAUTH_GOOGLE_CLIENT_ID: 'id' })).toThrow('OAUTH_GOOGLE_CLIENT_SECRET is missing');
    expect(() => loadOAuthProviders({ OAUTH_ACME_CLIENT_ID: 'id', OAUTH_ACME_CLIENT_SECRET: 's' })).toThrow('OAUTH_ACME_AUTHORIZATION_URL is missing');
    expect(() => loadOAuthProviders({ OAUTH_GITHUB_CLIENT_ID: 'id', OAUTH_GITHUB_CLIENT_SECRET: 's', OAUTH_GITHUB_TOKEN_URL: 'ftp://x' })).toThrow(
      'OAUTH_GITHUB_TOKEN_URL must be an http:// or https:// URL, got "ftp://x".',
    );
    expect(() => loadOAuthProviders({ OAUTH_GOOGLE_CLIENTID: 'id' })).toThrow('OAUTH_GOOGLE_CLIENTID is not an OAuth setting');
  });

  it('takes a provider without ALLOWED_CALLBACK_ORIGINS (a sign-in can return to the service’s own settings page), and reads RATE_LIMIT_PER_MINUTE', () => {
    const google = { OAUTH_GOOGLE_CLIENT_ID: 'id', OAUTH_GOOGLE_CLIENT_SECRET: 's' };
    expect(loadConfig(google).allowedCallbackOrigins).toEqual([]);
    const config = loadConfig({ ...google, ALLOWED_CALLBACK_ORIGINS: 'https://app.example.com/', RATE_LIMIT_PER_MINUTE: '0' });
    expect(config.oauthProviders.map((provider) => provider.name)).toEqual(['google']);
    expect(config.allowedCallbackOrigins).toEqual(['https://app.example.com']);
    expect(config.rateLimitPerMinute).toBe(0);
    expect(loadConfig({}).rateLimitPerMinute).toBe(6000);
    expect(() => loadConfig({ RATE_LIMIT_PER_MINUTE: '-1' })).toThrow('RATE_LIMIT_PER_MINUTE must be a whole number from 0 to 1000000, got "-1".');
  });
});
