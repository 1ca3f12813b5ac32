import { ConfigError } from './config-error.js';

/**
 * The settings of the real providers, read only when the provider is the chosen one: a provider
 * chosen without its credentials stops the service at start with a sentence naming what is
 * missing. Credentials come from the environment only; they are never logged (the logger redacts
 * `secret` and `key` fields at any depth) and never leave the adapter that signs with them.
 */
export interface PlaidConfig {
  readonly clientId: string;
  readonly secret: string;
  readonly environment: PlaidEnvironment;
  /** The API's address: the environment's, unless PLAID_BASE_URL names another (a proxy). */
  readonly baseUrl: string;
  /** ISO 3166-1 alpha-2 codes of the countries whose institutions Link offers. */
  readonly countryCodes: readonly string[];
}

export const PLAID_ENVIRONMENTS = { sandbox: 'https://sandbox.plaid.com', production: 'https://production.plaid.com' } as const;
export type PlaidEnvironment = keyof typeof PLAID_ENVIRONMENTS;

export interface SnapTradeConfig {
  readonly clientId: string;
  readonly consumerKey: string;
  readonly baseUrl: string;
}

export const SNAPTRADE_BASE_URL = 'https://api.snaptrade.com';

export interface AlphaVantageConfig {
  readonly apiKey: string;
  readonly baseUrl: string;
}

export const ALPHA_VANTAGE_BASE_URL = 'https://www.alphavantage.co';

const value = (env: NodeJS.ProcessEnv, name: string): string | undefined => env[name]?.trim() || undefined;

/** The named variables, all required: the sentence names every one that is missing, or that holds a space. */
function required<Names extends string>(env: NodeJS.ProcessEnv, because: string, names: readonly Names[]): Record<Names, string> {
  const missing = names.filter((name) => value(env, name) === undefined);
  if (missing.length > 0) throw new ConfigError(`${because} needs ${names.join(' and ')}; missing: ${missing.join(', ')}.`);
  const spaced = names.filter((name) => /\s/.test(value(env, name) as string));
  if (spaced.length > 0) throw new ConfigError(`${spaced.join(' and ')} must not contain spaces: copy the value again from the provider's dashboard.`);
  return Object.fromEntries(names.map((name) => [name, value(env, name) as string])) as Record<Names, string>;
}

function baseUrl(env: NodeJS.ProcessEnv, name: string, fallback: string): string {
  const raw = value(env, name);
  if (raw === undefined) return fallback;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be an http:// or https:// URL, got something that is not one.`);
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw new ConfigError(`${name} must start with http:// or https://, got "${parsed.protocol}//".`);
  return raw.replace(/\/+$/, '');
}

export function loadPlaidConfig(env: NodeJS.ProcessEnv, chosen: boolean): PlaidConfig | null {
  if (!chosen) return null;
  const credentials = required(env, 'BANK_LINK_PROVIDER=plaid', ['PLAID_CLIENT_ID', 'PLAID_SECRET'] as const);
  const environment = value(env, 'PLAID_ENV') ?? 'sandbox';
  if (environment === 'development') {
    throw new ConfigError('PLAID_ENV=development names an environment Plaid has retired: use sandbox (test data) or production (real banks, Limited Production included).');
  }
  if (!(environment in PLAID_ENVIRONMENTS)) throw new ConfigError(`PLAID_ENV must be sandbox or production, got "${environment}".`);
  const countryCodes = (value(env, 'PLAID_COUNTRY_CODES') ?? 'US').split(',').map((code) => code.trim().toUpperCase());
  const wrong = countryCodes.find((code) => !/^[A-Z]{2}$/.test(code));
  if (wrong !== undefined) throw new ConfigError(`PLAID_COUNTRY_CODES must be comma-separated two-letter country codes such as US,CA, got "${wrong}".`);
  const plaidEnvironment = environment as PlaidEnvironment;
  return {
    clientId: credentials.PLAID_CLIENT_ID,
    secret: credentials.PLAID_SECRET,
    environment: plaidEnvironment,
    baseUrl: baseUrl(env, 'PLAID_BASE_URL', PLAID_ENVIRONMENTS[plaidEnvironment]),
    countryCodes,
  };
}

export function loadSnapTradeConfig(env: NodeJS.ProcessEnv, chosen: boolean): SnapTradeConfig | null {
  if (!chosen) return null;
  const credentials = required(env, 'BROKERAGE_LINK_PROVIDER=snaptrade', ['SNAPTRADE_CLIENT_ID', 'SNAPTRADE_CONSUMER_KEY'] as const);
  return { clientId: credentials.SNAPTRADE_CLIENT_ID, consumerKey: credentials.SNAPTRADE_CONSUMER_KEY, baseUrl: baseUrl(env, 'SNAPTRADE_BASE_URL', SNAPTRADE_BASE_URL) };
}

export function loadAlphaVantageConfig(env: NodeJS.ProcessEnv, chosen: boolean): AlphaVantageConfig | null {
  if (!chosen) return null;
  const credentials = required(env, 'QUOTE_PROVIDER=alphavantage', ['ALPHA_VANTAGE_API_KEY'] as const);
  return { apiKey: credentials.ALPHA_VANTAGE_API_KEY, baseUrl: baseUrl(env, 'ALPHA_VANTAGE_BASE_URL', ALPHA_VANTAGE_BASE_URL) };
}
