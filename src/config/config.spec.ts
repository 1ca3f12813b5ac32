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

  it('selects the full stack from its URLs', () => {
    const config = loadConfig({ DATABASE_URL: 'postgres://u:p@db:5432/ledgerline', REDIS_URL: 'redis://cache:6379', EVENTSTORE_URL: 'esdb://events:2113?tls=false' });
    expect(config).toMatchObject({ databaseUrl: 'postgres://u:p@db:5432/ledgerline', redisUrl: 'redis://cache:6379', eventStoreUrl: 'esdb://events:2113?tls=false' });
  });

  it('reads the bank-link provider (sandbox by default) and the access-token key as base64 or hex', () => {
    expect(loadConfig({})).toMatchObject({ bankLinkProvider: 'sandbox', linkTokenKey: null });
    expect(loadConfig({ BANK_LINK_PROVIDER: 'none' }).bankLinkProvider).toBe('none');
    expect(() => loadConfig({ BANK_LINK_PROVIDER: 'plaid' })).toThrow(/^BANK_LINK_PROVIDER must be one of sandbox, none/);
    const key = Buffer.alloc(32, 9);
    expect(loadConfig({ LINK_TOKEN_KEY: key.toString('base64') }).linkTokenKey).toEqual(key);
    expect(loadConfig({ LINK_TOKEN_KEY: key.toString('hex') }).linkTokenKey).toEqual(key);
    expect(() => loadConfig({ LINK_TOKEN_KEY: 'short' })).toThrow(/^LINK_TOKEN_KEY must be 32 random bytes/);
  });

  it('reads how often linked items are synced on their own: hourly by default, 0 for never, at most daily', () => {
    expect(loadConfig({}).bankLinkSyncIntervalMinutes).toBe(60);
    expect(loadConfig({ BANK_LINK_SYNC_INTERVAL_MINUTES: '0' }).bankLinkSyncIntervalMinutes).toBe(0);
    expect(loadConfig({ BANK_LINK_SYNC_INTERVAL_MINUTES: '15' }).bankLinkSyncIntervalMinutes).toBe(15);
    expect(() => loadConfig({ BANK_LINK_SYNC_INTERVAL_MINUTES: '2.5' })).toThrow('BANK_LINK_SYNC_INTERVAL_MINUTES must be a whole number from 0 to 1440, got "2.5".');
    expect(() => loadConfig({ BANK_LINK_SYNC_INTERVAL_MINUTES: '10000' })).toThrow(/^BANK_LINK_SYNC_INTERVAL_MINUTES must be a whole number from 0 to 1440/);
  });
});
