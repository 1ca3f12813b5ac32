import { Configuration, type CountryCode, type ItemWithConsentFields, PlaidApi, type Products } from 'plaid';
import { BankLinkError, type BankLinkProvider, type Institution, type ItemStatus } from '../../bank-link.port.js';
import { ACCESS_TOKEN_ERRORS, asBankLinkError, PlaidApiError, plaidCall } from './plaid-api-error.js';
import { linkAccountOf, providerTransactionOf } from './plaid-mapping.js';
import { PlaidWebhookKeys, type PlaidVerificationKey } from './plaid-webhook-keys.js';
import { parsePlaidWebhook, verifyPlaidWebhook } from './plaid-webhooks.js';

export interface PlaidBankOptions {
  readonly clientId: string;
  readonly secret: string;
  /** `https://sandbox.plaid.com`, `https://production.plaid.com`, or another address serving Plaid's API (a proxy, the tests' recorded exchanges). */
  readonly basePath: string;
  /** Where Plaid sends the items' webhooks: the service's `POST /v1/webhooks/bank-link`. */
  readonly webhookUrl: string;
  readonly countryCodes: readonly string[];
  /** A call not answered by then fails (and a sync is retried later). */
  readonly timeoutMs?: number;
}

/** Shown by Link as the application's name (at most 30 characters). */
const CLIENT_NAME = 'Ledgerline';
/** Two years of history, as the sandbox gives. */
const DAYS_REQUESTED = 730;
/** Plaid's largest page. */
const MAX_SYNC_COUNT = 500;
const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * The bank-link port over Plaid's API with its official client: Link tokens (update mode for a
 * reconnect), the public-token exchange, `/transactions/sync`, the item's accounts, status and
 * removal, and its webhooks verified as Plaid specifies. Plaid holds all of an item's state; the
 * service keeps only the access token, sealed (link_item_credentials).
 */
export function createPlaidBank(options: PlaidBankOptions): BankLinkProvider {
  const plaid = new PlaidApi(
    new Configuration({
      basePath: options.basePath,
      baseOptions: { headers: { 'PLAID-CLIENT-ID': options.clientId, 'PLAID-SECRET': options.secret }, timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS },
    }),
  );
  const countryCodes = options.countryCodes as CountryCode[];
  const keys = new PlaidWebhookKeys(async (kid): Promise<PlaidVerificationKey | null> => {
    try {
      return (await plaidCall('webhook_verification_key/get', () => plaid.webhookVerificationKeyGet({ key_id: kid }))).key;
    } catch (error) {
      // Plaid answers a key id it does not know with a 4xx; anything else (down, 5xx) is not an answer.
      if (error instanceof PlaidApiError && error.status !== null && error.status >= 400 && error.status < 500 && error.status !== 429) return null;
      throw error;
    }
  });

  async function withAccessToken<T>(operation: string, call: () => Promise<{ data: T }>): Promise<T> {
    try {
      return await plaidCall(operation, call);
    } catch (error) {
      throw asBankLinkError(error, ACCESS_TOKEN_ERRORS);
    }
  }

  async function institutionOf(item: { institution_id?: string | null; institution_name?: string | null }): Promise<Institution> {
    const id = item.institution_id ?? 'unknown';
    const fallback: Institution = { id, name: item.institution_name ?? 'Unknown institution', logo: null, url: null };
    if (!item.institution_id) return fallback;
    try {
      const { institution } = await plaidCall('institutions/get_by_id', () =>
        plaid.institutionsGetById({ institution_id: id, country_codes: countryCodes, options: { include_optional_metadata: true } }),
      );
      // Plaid's logo is a base64 PNG, not an address: the service shows logos by address, so none.
      return { id, name: institution.name, logo: null, url: institution.url ?? null };
    } catch {
      // Cosmetic: an item is linked without its institution's address rather than not at all.
      return fallback;
    }
  }

  return {
    async createLinkToken({ userId, reconnectItemId, reconnectAccessToken }) {
      if (reconnectItemId !== undefined && reconnectAccessToken === undefined) throw new BankLinkError('ITEM_NOT_FOUND', `No access token is kept for item ${reconnectItemId}`);
      const base = { client_name: CLIENT_NAME, language: 'en', country_codes: countryCodes, user: { client_user_id: userId }, webhook: options.webhookUrl };
      const request =
        reconnectAccessToken === undefined
          ? { ...base, products: ['transactions' as Products], transactions: { days_requested: DAYS_REQUESTED } }
          : // Update mode: the item's own login again, and the accounts the user adds join it.
            { ...base, access_token: reconnectAccessToken, update: { account_selection_enabled: true } };
      try {
        const created = await plaidCall('link/token/create', () => plaid.linkTokenCreate(request));
        return { linkToken: created.link_token, expiration: new Date(created.expiration).toISOString() };
      } catch (error) {
        throw asBankLinkError(error, { INVALID_ACCESS_TOKEN: 'ITEM_NOT_FOUND', ITEM_NOT_FOUND: 'ITEM_NOT_FOUND' });
      }
    },

    async exchangePublicToken({ publicToken }) {
      let exchanged;
      try {
        exchanged = await plaidCall('item/public_token/exchange', () => plaid.itemPublicTokenExchange({ public_token: publicToken }));
      } catch (error) {
        throw asBankLinkError(error, { INVALID_PUBLIC_TOKEN: 'INVALID_PUBLIC_TOKEN' });
      }
      const { accounts, item } = await withAccessToken('accounts/get', () => plaid.accountsGet({ access_token: exchanged.access_token }));
      return { itemId: exchanged.item_id, accessToken: exchanged.access_token, institution: await institutionOf(item), accounts: accounts.map(linkAccountOf) };
    },

    async syncTransactions({ accessToken, cursor, count }) {
      const request = { access_token: accessToken, count: Math.min(Math.max(count ?? MAX_SYNC_COUNT, 1), MAX_SYNC_COUNT), ...(cursor ? { cursor } : {}) };
      let page;
      try {
        page = await plaidCall('transactions/sync', () => plaid.transactionsSync(request));
      } catch (error) {
        throw asBankLinkError(error, { ...ACCESS_TOKEN_ERRORS, TRANSACTIONS_SYNC_MUTATION_DURING_PAGINATION: 'PAGINATION_RESTART_REQUIRED' });
      }
      return {
        added: page.added.map(providerTransactionOf),
        modified: page.modified.map(providerTransactionOf),
        removed: page.removed.map((removed) => ({ transactionId: removed.transaction_id })),
        hasMore: page.has_more,
        nextCursor: page.next_cursor,
      };
    },

    async getItemStatus(accessToken) {
      const { item } = await withAccessToken('item/get', () => plaid.itemGet({ access_token: accessToken }));
      return itemStatusOf(item);
    },

    async getAccounts(accessToken) {
      return (await withAccessToken('accounts/get', () => plaid.accountsGet({ access_token: accessToken }))).accounts.map(linkAccountOf);
    },

    async removeItem(accessToken) {
      await withAccessToken('item/remove', () => plaid.itemRemove({ access_token: accessToken }));
    },

    verifyWebhook: (rawBody, headers, now) => verifyPlaidWebhook(rawBody, headers, now, keys),
    parseWebhook: parsePlaidWebhook,
  };
}

function itemStatusOf(item: ItemWithConsentFields): ItemStatus {
  if (item.error === null || item.error === undefined) return { status: 'ok' };
  if (item.error.error_code === 'ITEM_LOGIN_REQUIRED') return { status: 'login_required' };
  return { status: 'error', error: { errorCode: item.error.error_code, errorMessage: item.error.error_message } };
}
