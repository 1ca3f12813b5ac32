import { ConfigError, loadConfig } from './config.js';

describe('configuration', () => {
  it('starts with nothing set: the embedded default', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ port: 3000, databaseUrl: null, redisUrl: null, eventStoreUrl: null, logLevel: 'info', embeddedPostgresPort: 54329 });
    expect(config.dataDir).toMatch(/data$/);
  });

  it('refuses a wrong value with a sentence that names the variable', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(new ConfigError('PORT must be a whole number from 0 to 65535, got "eighty".'));
    expect(() => loadConfig({ DATABASE_URL: 'mysql://x' })).toThrow(/^DATABASE_URL must start with postgres:\/\/ or postgresql:\/\//);
    expect(() => loadConfig({ REDIS_URL: 'not a url' })).toThrow(/^REDIS_URL must be a URL/);
    expect(() => loadConfig({ LOG_LEVEL: 'loud' })).toThrow(/^LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent/);
    expect(() => loadConfig({ ALLOWED_CALLBACK_ORIGINS: 'https://ok.example, nope' })).toThrow(/^ALLOWED_CALLBACK_ORIGINS must be a comma-separated list of origins/);
  });

  it('reads the sign-in rate limit per address and the absolute session lifetime, with their defaults', () => {
    expect(loadConfig({})).toMatchObject({ signInRateLimitPerMinute: 30, sessionMaxLifetimeDays: 90 });
    expect(loadConfig({ SIGN_IN_RATE_LIMIT_PER_MINUTE: '0', SESSION_MAX_LIFETIME_DAYS: '7' })).toMatchObject({ signInRateLimitPerMinute: 0, sessionMaxLifetimeDays: 7 });
    expect(() => loadConfig({ SESSION_MAX_LIFETIME_DAYS: '0' })).toThrow('SESSION_MAX_LIFETIME_DAYS must be a whole number from 1 to 3650, got "0".');
    expect(() => loadConfig({ SIGN_IN_RATE_LIMIT_PER_MINUTE: 'many' })).toThrow(/^SIGN_IN_RATE_LIMIT_PER_MINUTE must be a whole number/);
  });

  it('reads the webhook settings, refusing a flag that is not true or false', () => {
    expect(loadConfig({})).toMatchObject({ webhookAllowPrivateUrls: false, webhookRetryBaseMs: 30_000, webhookTimeoutMs: 10_000, webhookConcurrency: 16 });
    expect(loadConfig({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_RETRY_BASE_MS: '200', WEBHOOK_TIMEOUT_MS: '2000' })).toMatchObject({ webhookAllowPrivateUrls: true, webhookRetryBaseMs: 200, webhookTimeoutMs: 2000 });
    expect(() => loadConfig({ WEBHOOK_ALLOW_PRIVATE_URLS: 'yes' })).toThrow(new ConfigError('WEBHOOK_ALLOW_PRIVATE_URLS must be true or false, got "yes".'));
    expect(() => loadConfig({ WEBHOOK_TIMEOUT_MS: '0' })).toThrow(/^WEBHOOK_TIMEOUT_MS must be a whole number from 100 to 60000/);
  });

  it('selects the full stack from its URLs', () => {
    const config = loadConfig({ DATABASE_URL: 'postgres://u:p@db:5432/ledgerline', REDIS_URL: 'redis://cache:6379', EVENTSTORE_URL: 'esdb://events:2113?tls=false' });
    expect(config).toMatchObject({ databaseUrl: 'postgres://u:p@db:5432/ledgerline', redisUrl: 'redis://cache:6379', eventStoreUrl: 'esdb://events:2113?tls=false' });
  });

  it('reads the bank-link provider (sandbox by default) and the access-token key as base64 or hex', () => {
    expect(loadConfig({})).toMatchObject({ bankLinkProvider: 'sandbox', linkTokenKey: null });
    expect(loadConfig({ BANK_LINK_PROVIDER: 'none' }).bankLinkProvider).toBe('none');
    expect(() => loadConfig({ BANK_LINK_PROVIDER: 'teller' })).toThrow(/^BANK_LINK_PROVIDER must be one of sandbox, plaid, none/);
    const key = Buffer.alloc(32, 9);
    expect(loadConfig({ LINK_TOKEN_KEY: key.toString('base64') }).linkTokenKey).toEqual(key);
    expect(loadConfig({ LINK_TOKEN_KEY: key.toString('hex') }).linkTokenKey).toEqual(key);
    expect(() => loadConfig({ LINK_TOKEN_KEY: 'short' })).toThrow(/^LINK_TOKEN_KEY must be 32 random bytes/);
  });

  it('reads the sandbox webhook secret as 32 bytes in base64 or hex, absent by default', () => {
    expect(loadConfig({}).sandboxWebhookSecret).toBeNull();
    const secret = Buffer.alloc(32, 5);
    expect(loadConfig({ SANDBOX_WEBHOOK_SECRET: secret.toString('base64') }).sandboxWebhookSecret).toEqual(secret);
    expect(loadConfig({ SANDBOX_WEBHOOK_SECRET: ` ${secret.toString('hex')} ` }).sandboxWebhookSecret).toEqual(secret);
    for (const wrong of ['ledgerline-sandbox-webhook-secret', Buffer.alloc(16, 5).toString('base64'), 'z'.repeat(64)]) {
      expect(() => loadConfig({ SANDBOX_WEBHOOK_SECRET: wrong })).toThrow(/^SANDBOX_WEBHOOK_SECRET must be 32 random bytes written as base64 \(44 characters\) or hex \(64\)/);
    }
  });

  it('reads how often linked items are synced on their own: hourly by default, 0 for never, at most daily', () => {
    expect(loadConfig({}).bankLinkSyncIntervalMinutes).toBe(60);
    expect(loadConfig({ BANK_LINK_SYNC_INTERVAL_MINUTES: '0' }).bankLinkSyncIntervalMinutes).toBe(0);
    expect(loadConfig({ BANK_LINK_SYNC_INTERVAL_MINUTES: '15' }).bankLinkSyncIntervalMinutes).toBe(15);
    expect(() => loadConfig({ BANK_LINK_SYNC_INTERVAL_MINUTES: '2.5' })).toThrow('BANK_LINK_SYNC_INTERVAL_MINUTES must be a whole number from 0 to 1440, got "2.5".');
    expect(() => loadConfig({ BANK_LINK_SYNC_INTERVAL_MINUTES: '10000' })).toThrow(/^BANK_LINK_SYNC_INTERVAL_MINUTES must be a whole number from 0 to 1440/);
  });

  it('reads the quote provider (sandbox by default), the quote cache TTL (15 s) and the provider call timeout (2 s)', () => {
    expect(loadConfig({})).toMatchObject({ quoteProvider: 'sandbox', quoteCacheTtlSeconds: 15, quoteProviderTimeoutMs: 2000 });
    expect(loadConfig({ QUOTE_PROVIDER: 'none', QUOTE_CACHE_TTL_SECONDS: '60', QUOTE_PROVIDER_TIMEOUT_MS: '500' })).toMatchObject({ quoteProvider: 'none', quoteCacheTtlSeconds: 60, quoteProviderTimeoutMs: 500 });
    expect(() => loadConfig({ QUOTE_PROVIDER: 'exchange' })).toThrow(/^QUOTE_PROVIDER must be one of sandbox, alphavantage, none/);
    expect(() => loadConfig({ QUOTE_CACHE_TTL_SECONDS: '0' })).toThrow('QUOTE_CACHE_TTL_SECONDS must be a whole number from 1 to 3600, got "0".');
    expect(() => loadConfig({ QUOTE_PROVIDER_TIMEOUT_MS: '1.5' })).toThrow(/^QUOTE_PROVIDER_TIMEOUT_MS must be a whole number from 1 to 60000/);
  });

  it('reads the brokerage-link provider (sandbox by default), the portal return URL (PUBLIC_URL/ by default) and the daily brokerage sync interval', () => {
    expect(loadConfig({ PUBLIC_URL: 'https://ledger.example/' })).toMatchObject({ brokerageLinkProvider: 'sandbox', brokerageReturnUrl: 'https://ledger.example/', brokerageSyncIntervalMinutes: 1440 });
    expect(loadConfig({ PORT: '8080' }).brokerageReturnUrl).toBe('http://localhost:8080/');
    expect(loadConfig({ BROKERAGE_LINK_PROVIDER: 'none', BROKERAGE_RETURN_URL: 'https://app.example/brokerage/done', BROKERAGE_SYNC_INTERVAL_MINUTES: '0' })).toMatchObject({
      brokerageLinkProvider: 'none',
      brokerageReturnUrl: 'https://app.example/brokerage/done',
      brokerageSyncIntervalMinutes: 0,
    });
    expect(() => loadConfig({ BROKERAGE_LINK_PROVIDER: 'alpaca' })).toThrow(/^BROKERAGE_LINK_PROVIDER must be one of sandbox, snaptrade, none/);
    expect(() => loadConfig({ BROKERAGE_RETURN_URL: 'javascript:alert(1)' })).toThrow(/^BROKERAGE_RETURN_URL must start with http:\/\/ or https:\/\//);
    expect(() => loadConfig({ BROKERAGE_SYNC_INTERVAL_MINUTES: '1441' })).toThrow(/^BROKERAGE_SYNC_INTERVAL_MINUTES must be a whole number from 0 to 1440/);
  });

  it('reads Plaid only when it is the bank-link provider, and refuses it without its credentials, with a retired or unknown environment, or a bad country code', () => {
    expect(loadConfig({ PLAID_CLIENT_ID: 'ignored' }).plaid).toBeNull();
    const plaid = { BANK_LINK_PROVIDER: 'plaid', PLAID_CLIENT_ID: '5f3c0e9a1b2c3d4e5f6a7b8c', PLAID_SECRET: '0123456789abcdef0123456789abcd' };
    expect(loadConfig(plaid)).toMatchObject({ bankLinkProvider: 'plaid', plaid: { clientId: plaid.PLAID_CLIENT_ID, secret: plaid.PLAID_SECRET, environment: 'sandbox', baseUrl: 'https://sandbox.plaid.com', countryCodes: ['US'] } });
    expect(loadConfig({ ...plaid, PLAID_ENV: 'production', PLAID_COUNTRY_CODES: 'us, ca' }).plaid).toMatchObject({ environment: 'production', baseUrl: 'https://production.plaid.com', countryCodes: ['US', 'CA'] });
    expect(loadConfig({ ...plaid, PLAID_BASE_URL: 'http://127.0.0.1:4010/' }).plaid?.baseUrl).toBe('http://127.0.0.1:4010');
    expect(() => loadConfig({ BANK_LINK_PROVIDER: 'plaid' })).toThrow(new ConfigError('BANK_LINK_PROVIDER=plaid needs PLAID_CLIENT_ID and PLAID_SECRET; missing: PLAID_CLIENT_ID, PLAID_SECRET.'));
    expect(() => loadConfig({ ...plaid, PLAID_SECRET: ' ' })).toThrow('BANK_LINK_PROVIDER=plaid needs PLAID_CLIENT_ID and PLAID_SECRET; missing: PLAID_SECRET.');
    expect(() => loadConfig({ ...plaid, PLAID_SECRET: 'abc def' })).toThrow(/^PLAID_SECRET must not contain spaces/);
    expect(() => loadConfig({ ...plaid, PLAID_ENV: 'development' })).toThrow(/^PLAID_ENV=development names an environment Plaid has retired: use sandbox .* or production/);
    expect(() => loadConfig({ ...plaid, PLAID_ENV: 'staging' })).toThrow('PLAID_ENV must be sandbox or production, got "staging".');
    expect(() => loadConfig({ ...plaid, PLAID_COUNTRY_CODES: 'USA' })).toThrow(/^PLAID_COUNTRY_CODES must be comma-separated two-letter country codes/);
    expect(() => loadConfig({ ...plaid, PLAID_BASE_URL: 'ftp://plaid' })).toThrow(/^PLAID_BASE_URL must start with http:\/\/ or https:\/\//);
  });

  it('reads SnapTrade and Alpha Vantage only when chosen, and refuses either without its key', () => {
    expect(loadConfig({})).toMatchObject({ snapTrade: null, alphaVantage: null });
    expect(loadConfig({ BROKERAGE_LINK_PROVIDER: 'snaptrade', SNAPTRADE_CLIENT_ID: 'LEDGERLINE-TEST', SNAPTRADE_CONSUMER_KEY: 'consumer-key' }).snapTrade).toEqual({ clientId: 'LEDGERLINE-TEST', consumerKey: 'consumer-key', baseUrl: 'https://api.snaptrade.com' });
    expect(() => loadConfig({ BROKERAGE_LINK_PROVIDER: 'snaptrade', SNAPTRADE_CLIENT_ID: 'LEDGERLINE-TEST' })).toThrow('BROKERAGE_LINK_PROVIDER=snaptrade needs SNAPTRADE_CLIENT_ID and SNAPTRADE_CONSUMER_KEY; missing: SNAPTRADE_CONSUMER_KEY.');
    expect(loadConfig({ QUOTE_PROVIDER: 'alphavantage', ALPHA_VANTAGE_API_KEY: 'DEMOKEY123' }).alphaVantage).toEqual({ apiKey: 'DEMOKEY123', baseUrl: 'https://www.alphavantage.co' });
    expect(() => loadConfig({ QUOTE_PROVIDER: 'alphavantage' })).toThrow('QUOTE_PROVIDER=alphavantage needs ALPHA_VANTAGE_API_KEY; missing: ALPHA_VANTAGE_API_KEY.');
  });
});
