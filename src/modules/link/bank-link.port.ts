/**
 * The bank-link provider port (Plaid-like). The sandbox in `./sandbox-bank` is the default
 * implementation; Plaid (`./provider/plaid`) plugs in behind the same interface, and both pass
 * `bank-link-contract.test-support.ts`.
 *
 * Money is a decimal string. Transaction amounts are signed from the account holder's side:
 * positive = money in, negative = money out. Balances are signed the same way: assets positive,
 * liabilities (credit, loan) negative, so `current = opening + Σ posted amounts` for every type.
 */

export type PaymentChannel = 'in store' | 'online' | 'other';

export type CounterpartyType =
  | 'merchant'
  | 'financial_institution'
  | 'payment_app'
  | 'marketplace'
  | 'payment_terminal'
  | 'income_source';

export type ConfidenceLevel = 'VERY_HIGH' | 'HIGH' | 'MEDIUM' | 'LOW' | 'UNKNOWN';

export interface ProviderCounterparty {
  readonly name: string;
  readonly type: CounterpartyType;
  readonly logo_url: string | null;
  readonly website: string | null;
  readonly entity_id: string | null;
  readonly confidence_level: ConfidenceLevel | null;
}

export interface ProviderLocation {
  readonly address: string | null;
  readonly city: string | null;
  readonly country: string | null;
  readonly postal_code: string | null;
  readonly region: string | null;
  readonly store_number: string | null;
  readonly lat: number | null;
  readonly lon: number | null;
}

export interface ProviderTransaction {
  readonly transactionId: string;
  /** The `linkAccountId` of the account. */
  readonly accountId: string;
  /** Signed decimal string: positive = money in, negative = money out. */
  readonly amount: string;
  readonly isoCurrencyCode: string;
  /** `YYYY-MM-DD`: the posting date (for a pending transaction, the day it was seen). */
  readonly date: string;
  readonly authorizedDate: string | null;
  /** The raw statement descriptor, e.g. "NETFLIX.COM 866-579-7172". */
  readonly name: string;
  readonly merchantName: string | null;
  /** A category `systemKey` from `categories/system-taxonomy.ts`, or null when unknown. */
  readonly categorySystemKey: string | null;
  readonly paymentChannel: PaymentChannel;
  readonly pending: boolean;
  /** On a posted transaction, the id of the pending transaction it replaces. */
  readonly pendingTransactionId: string | null;
  readonly counterparties: readonly ProviderCounterparty[];
  readonly location: ProviderLocation;
  readonly logoUrl: string | null;
  readonly website: string | null;
}

export interface Institution {
  readonly id: string;
  readonly name: string;
  readonly logo: string | null;
  readonly url: string | null;
}

export type LinkAccountType = 'depository' | 'credit' | 'loan' | 'investment';

export interface LinkAccountBalances {
  /** Signed: assets positive, liabilities negative. Posted transactions only. */
  readonly current: string | null;
  /** Current plus pending; for credit, the remaining credit (`limit + current + pending`). */
  readonly available: string | null;
  readonly limit: string | null;
}

export interface LinkAccount {
  readonly linkAccountId: string;
  readonly name: string;
  readonly officialName: string | null;
  readonly mask: string | null;
  readonly type: LinkAccountType;
  readonly subtype: string | null;
  readonly currency: string;
  readonly balances: LinkAccountBalances;
}

export interface LinkToken {
  readonly linkToken: string;
  /** ISO-8601 instant. */
  readonly expiration: string;
}

export interface ExchangedItem {
  readonly itemId: string;
  readonly accessToken: string;
  readonly institution: Institution;
  readonly accounts: readonly LinkAccount[];
}

export interface SyncRequest {
  readonly accessToken: string;
  /** Opaque; omit for the first page. */
  readonly cursor?: string;
  /** Maximum number of changes in the page. */
  readonly count?: number;
}

/** Apply `added`, then `modified`, then `removed`; a page never names a transaction twice. */
export interface SyncPage {
  readonly added: readonly ProviderTransaction[];
  readonly modified: readonly ProviderTransaction[];
  readonly removed: readonly { readonly transactionId: string }[];
  readonly hasMore: boolean;
  /** Pass back to continue; when `hasMore` is false, keep it for the next sync. */
  readonly nextCursor: string;
}

export interface ItemError {
  readonly errorCode: string;
  readonly errorMessage: string;
}

export type ItemStatus =
  | { readonly status: 'ok' }
  | { readonly status: 'login_required' }
  | { readonly status: 'pending_disconnect'; readonly disconnectAt: string }
  | { readonly status: 'error'; readonly error: ItemError };

export type BankLinkWebhookCode =
  | 'SYNC_UPDATES_AVAILABLE'
  | 'ITEM_LOGIN_REQUIRED'
  | 'ERROR'
  | 'LOGIN_REPAIRED'
  | 'PENDING_DISCONNECT'
  | 'PENDING_EXPIRATION'
  | 'NEW_ACCOUNTS_AVAILABLE';

export const BANK_LINK_WEBHOOK_CODES: readonly BankLinkWebhookCode[] = [
  'SYNC_UPDATES_AVAILABLE',
  'ITEM_LOGIN_REQUIRED',
  'ERROR',
  'LOGIN_REPAIRED',
  'PENDING_DISCONNECT',
  'PENDING_EXPIRATION',
  'NEW_ACCOUNTS_AVAILABLE',
];

/**
 * What a webhook says, whichever code it has. `webhookId` names this one delivery as signed: the
 * sandbox's `webhook_id` inside the signed body (a retry or a replay carries the same id); for a
 * provider without one in the body (Plaid), the digest of its signature, so a replay of the very
 * same delivery is known again.
 */
export type BankLinkWebhook = { readonly webhookId: string } & (
  | {
      readonly code: 'SYNC_UPDATES_AVAILABLE';
      readonly itemId: string;
      readonly initialUpdateComplete: boolean;
      readonly historicalUpdateComplete: boolean;
    }
  | { readonly code: 'ITEM_LOGIN_REQUIRED'; readonly itemId: string; readonly error: ItemError }
  | { readonly code: 'ERROR'; readonly itemId: string; readonly error: ItemError }
  | { readonly code: 'LOGIN_REPAIRED'; readonly itemId: string }
  | {
      readonly code: 'PENDING_DISCONNECT';
      readonly itemId: string;
      /** ISO-8601 instant. */
      readonly disconnectAt: string;
      readonly reason: 'INSTITUTION_MIGRATION' | 'INSTITUTION_TOKEN_EXPIRATION';
    }
  | {
      readonly code: 'PENDING_EXPIRATION';
      readonly itemId: string;
      /** ISO-8601 instant: when the user's consent runs out (the item's pendingDisconnectAt). */
      readonly consentExpiresAt: string;
    }
  | { readonly code: 'NEW_ACCOUNTS_AVAILABLE'; readonly itemId: string }
);

/**
 * A well-signed body this port cannot act on: a code it does not know (providers add codes over
 * time), a known code missing what it needs (its id, item, error or date), or a body that is not a JSON object.
 */
export interface UnrecognisedWebhook {
  readonly code: 'UNRECOGNISED';
  readonly rawCode: string | null;
  readonly itemId: string | null;
  readonly webhookId: string | null;
}

export type WebhookHeaders = Readonly<Record<string, string | readonly string[] | undefined>>;

export type BankLinkErrorCode =
  | 'INVALID_ACCESS_TOKEN'
  /**
   * The provider's data changed while a sync was paging through it: the pages read since the
   * sync's first one cannot be continued, so the sync starts again from the cursor its first
   * page was asked with (the one the last complete sync ended on).
   */
  | 'PAGINATION_RESTART_REQUIRED'
  | 'INVALID_PUBLIC_TOKEN'
  | 'INVALID_LINK_TOKEN'
  | 'INVALID_CURSOR'
  | 'ITEM_NOT_FOUND'
  | 'ITEM_LOGIN_REQUIRED'
  | 'INSTITUTION_NOT_FOUND';

export class BankLinkError extends Error {
  constructor(
    readonly code: BankLinkErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'BankLinkError';
  }
}

/**
 * Link and public tokens belong to the user they were issued for: `userId` is the service's user
 * (a provider's `client_user_id`). A link token another user presents is INVALID_LINK_TOKEN, a
 * public token another user exchanges is INVALID_PUBLIC_TOKEN, and either is refused before the
 * provider changes anything (a reconnect's exchange replaces the item's access token).
 */
export interface BankLinkProvider {
  /**
   * A link token; with `reconnectItemId`, for the provider's update mode on that item, whose
   * access token a provider may need to open it (`reconnectAccessToken`).
   */
  createLinkToken(request: { userId: string; reconnectItemId?: string; reconnectAccessToken?: string }): Promise<LinkToken>;
  exchangePublicToken(request: { publicToken: string; userId: string }): Promise<ExchangedItem>;
  /**
   * Restartable: a page whose changes were applied may be asked for again and applied again. A
   * provider whose data moves while a sync pages through it answers PAGINATION_RESTART_REQUIRED.
   */
  syncTransactions(request: SyncRequest): Promise<SyncPage>;
  getItemStatus(accessToken: string): Promise<ItemStatus>;
  /** The item's accounts with their balances as the provider sees them now. */
  getAccounts(accessToken: string): Promise<readonly LinkAccount[]>;
  removeItem(accessToken: string): Promise<void>;
  /** False for a wrong signature, or one signed too long before (or after) `now`; may fetch the provider's verification key. */
  verifyWebhook(rawBody: string, headers: WebhookHeaders, now: Date): Promise<boolean>;
  /** Of a verified delivery: the headers carry the notification's id where the body does not. */
  parseWebhook(rawBody: string, headers: WebhookHeaders): BankLinkWebhook | UnrecognisedWebhook;
}
