import type { Generated } from 'kysely';
import type { AccountsTable } from '../../../projections/accounts/accounts.table.js';
import type { BalanceSnapshotsTable } from '../../../projections/balance-snapshots/balance-snapshots.table.js';
import type {
  BrokerageAccountsTable,
  BrokerageActivitiesTable,
  BrokerageAuthorizationsTable,
  BrokerageBalancesTable,
  BrokeragePositionsTable,
  PortfolioSnapshotsTable,
} from '../../../projections/brokerage/brokerage.tables.js';
import type { CategoriesTable, CategoryGroupsTable, CategoryTaxonomiesTable, SystemCategoriesTable, SystemCategoryGroupsTable } from '../../../projections/categories/categories.table.js';
import type { LinkItemsTable } from '../../../projections/link-items/link-items.table.js';
import type { RecurringStreamsTable } from '../../../projections/recurring/recurring.table.js';
import type { SpendingAggregateTable, SpendingTransactionsTable } from '../../../projections/spending/spending.table.js';
import type { TagsTable } from '../../../projections/tags/tags.table.js';
import type { TransactionActivityTable } from '../../../projections/transaction-activity/transaction-activity.table.js';
import type { TransactionsTable } from '../../../projections/transactions/transactions.table.js';
import type { UserSettingsTable } from '../../../projections/user-settings/user-settings.table.js';
import type { ProjectionLeasesTable } from '../projections/lease.js';
import type { JobOutboxTable } from '../jobs/job-outbox.js';
import type { IdempotencyKeysTable } from '../http/idempotency/idempotency.store.js';

export interface ProjectionVersionsTable {
  name: string;
  version: number;
  position_commit: Generated<string>;
  position_prepare: Generated<string>;
  events_applied: Generated<number>;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
  caught_up_at: Date | null;
  superseded_at: Date | null;
}

/** A projection rebuild under way: its shadow schema and progress (migration 0014). */
export interface ProjectionRebuildsTable {
  name: string;
  version: number;
  shadow_schema: string;
  position_commit: Generated<string>;
  position_prepare: Generated<string>;
  events_applied: Generated<string>;
  started_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface UsersTable {
  id: string;
  email: string | null;
  name: string | null;
  created_at: Date;
}

export interface ApiKeysTable {
  id: string;
  user_id: string;
  name: string;
  prefix: string;
  key_hash: Buffer;
  scopes: string[];
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

export interface ProviderIdentitiesTable {
  provider: string;
  subject: string;
  user_id: string;
  email: string | null;
  email_verified: boolean;
  name: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface SignInFlowsTable {
  state_hash: Buffer;
  provider: string;
  callback_url: string;
  sealed_verifier: Buffer;
  created_at: Date;
  expires_at: Date;
  /** SHA-256 of the nonce in the browser's pf_sign_in cookie (0008); null for flows begun before it. */
  browser_binding_hash: Buffer | null;
}

export interface SessionsTable {
  id_hash: Buffer;
  user_id: string;
  created_at: Date;
  refreshed_at: Date;
  expires_at: Date;
}

export type ParkedEventStatus = 'parked' | 'retried' | 'skipped';

/** An event a projection version could not apply and moved past (migration 0006, decision 0009). */
export interface ParkedEventsTable {
  projection: string;
  version: number;
  position_commit: string;
  position_prepare: string;
  event_id: string;
  stream_id: string;
  event_type: string;
  user_id: string | null;
  request_id: string | null;
  correlation_id: string | null;
  error: string;
  attempts: number;
  first_failed_at: Date;
  last_failed_at: Date;
  status: Generated<ParkedEventStatus>;
  resolved_at: Date | null;
  resolved_by: string | null;
}

/** Sealed access tokens of linked items (migration 0009). */
export type ImportStatus = 'queued' | 'running' | 'completed' | 'failed';

/** The `statement_imports` row (migration 0031). */
export interface StatementImportsTable {
  id: string;
  user_id: string;
  account_id: string;
  format: 'csv' | 'ofx';
  /** The CSV overrides the request gave (imports' CsvStatementOptions). */
  options: Record<string, unknown>;
  file: Buffer | null;
  status: ImportStatus;
  total_rows: number;
  rows_done: Generated<number>;
  imported: Generated<number>;
  duplicates: Generated<number>;
  failed: Generated<number>;
  failed_rows: Generated<Array<{ row: number; message: string }>>;
  error: string | null;
  correlation_id: string;
  created_at: Date;
  completed_at: Date | null;
}

/** A user's rule (migration 0032); conditions and actions as the API takes them (rules' RuleCondition, RuleAction). */
export interface RulesTable {
  id: string;
  user_id: string;
  name: string;
  conditions: unknown[];
  match: 'all' | 'any';
  actions: unknown[];
  order: number;
  created_at: Date;
  updated_at: Date;
}

/** One application of a rule to a user's existing transactions (migration 0032). */
export interface RuleApplicationsTable {
  id: string;
  user_id: string;
  rule_id: string;
  /** The same life as an import's: queued, running, completed or failed. */
  status: ImportStatus;
  matched: Generated<number>;
  changed: Generated<number>;
  /** The last transaction (by id) done: a resumed run starts after it. */
  after_transaction_id: string | null;
  error: string | null;
  correlation_id: string;
  created_at: Date;
  completed_at: Date | null;
}

export interface LinkItemCredentialsTable {
  link_item_uuid: string;
  user_id: string;
  provider: string;
  link_item_id: string;
  sealed_access_token: Buffer;
  created_at: Date;
}

/** The sandbox provider's public tokens: single use, short-lived, kept hashed (migration 0009). */
export interface SandboxBankPublicTokensTable {
  token_hash: Buffer;
  institution_id: string;
  item_seed: string;
  as_of: string;
  created_at: Date;
  expires_at: Date;
  used_at: Date | null;
  /** Migration 0011: the item's size on its link day (null: the generator's default). */
  transaction_count: number | null;
  /** Migration 0011: the days the item lives on after as_of (null: none). */
  horizon_days: number | null;
  /** Migration 0012: the item this token reconnects (null: a new item). */
  reconnect_item_id: string | null;
  /** Migration 0020: the user whose link flow made it, the only one who may exchange it (null: issued before 0020, exchangeable by nobody). */
  user_id: string | null;
}

/** The sandbox provider's link tokens, kept hashed, four hours (migration 0012). */
export interface SandboxBankLinkTokensTable {
  token_hash: Buffer;
  /** The item the link flow reconnects (null: a new link). */
  reconnect_item_id: string | null;
  created_at: Date;
  expires_at: Date;
  /** Migration 0020: the user it was issued to, the only one who may run the link flow with it (null: issued before 0020, usable by nobody). */
  user_id: string | null;
}

/** The sandbox provider's items: enough to regenerate each one exactly (migration 0009). */
export interface SandboxBankItemsTable {
  item_id: string;
  access_token_hash: Buffer;
  item_seed: string;
  institution_id: string;
  as_of: string;
  status: unknown;
  created_at: Date;
  removed_at: Date | null;
  /** Migration 0011: the item's size on its link day (null: the generator's default). */
  transaction_count: number | null;
  /** Migration 0011: the days the item lives on after as_of (null: none, an item linked before 0011). */
  horizon_days: number | null;
  /** Migration 0012: the bank opened an account the item does not share yet (NEW_ACCOUNTS_AVAILABLE); a reconnect adds it. */
  new_accounts_available: Generated<boolean>;
  /** Migration 0012: accounts reconnects have added after the link, beyond the generated ones. */
  extra_accounts: Generated<number>;
}

/** Provider webhooks received, by the provider's id of each: a replay changes nothing (migration 0010). */
export interface BankLinkWebhooksReceivedTable {
  provider: string;
  webhook_id: string;
  code: string | null;
  link_item_id: string | null;
  outcome: string;
  received_at: Date;
}

/** The service's registration of a user with the brokerage-link provider, its secret sealed (migration 0013). */
export interface BrokerageLinkUsersTable {
  user_id: string;
  provider: string;
  provider_user_id: string;
  sealed_user_secret: Buffer;
  created_at: Date;
}

/** The brokerage authorizations the service has recorded, for the daily sync (migration 0013). */
export interface BrokerageLinkAuthorizationsTable {
  authorization_uuid: string;
  user_id: string;
  provider: string;
  brokerage_authorization_id: string;
  created_at: Date;
}

/** The sandbox brokerage's registered users, their secrets hashed (migration 0013). */
export interface SandboxBrokerageUsersTable {
  user_id: string;
  secret_hash: Buffer;
  created_at: Date;
}

/** The sandbox brokerage's authorizations: enough to derive their accounts and history (migration 0013). */
export interface SandboxBrokerageAuthorizationsTable {
  authorization_id: string;
  user_id: string;
  brokerage_id: string;
  seed: string;
  /** YYYY-MM-DD: what the accounts' history is anchored on. */
  opened_on: string;
  status: 'active' | 'disabled';
  disabled_reason: string | null;
  created_at: Date;
  removed_at: Date | null;
}

/** The sandbox brokerage's connection portal sessions: single use, five minutes, hashed (migration 0013). */
export interface SandboxBrokeragePortalSessionsTable {
  token_hash: Buffer;
  user_id: string;
  /** The authorization the portal reconnects (null: a new connection). */
  reconnect_authorization_id: string | null;
  created_at: Date;
  expires_at: Date;
  used_at: Date | null;
  /** The authorization the session completed. */
  authorization_id: string | null;
}

/** The return of a real provider's connection portal to the service (migration 0036, decision 0046). */
export interface BrokeragePortalReturnsTable {
  token_hash: Buffer;
  user_id: string;
  provider: string;
  /** The authorization the portal reconnects (null: a new connection). */
  reconnect_authorization_id: string | null;
  created_at: Date;
  expires_at: Date;
  used_at: Date | null;
}

/** A user's webhook endpoint (migration 0029, decision 0039): configuration, not events. */
export interface WebhookEndpointsTable {
  id: string;
  user_id: string;
  url: string;
  description: string | null;
  event_types: string[];
  /** The signing secret, sealed (WebhookSecrets). */
  sealed_secret: Buffer;
  created_at: Date;
  updated_at: Date;
  disabled_at: Date | null;
}

/** One event to one endpoint: the durable queue the senders claim from, and the delivery log. */
export interface WebhookDeliveriesTable {
  id: string;
  seq: Generated<string>;
  user_id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  occurred_at: Date;
  /** The resource as the API shows it; null until rendered when it comes from an async read model (`render_from`). */
  data: unknown;
  render_from: unknown;
  status: Generated<'pending' | 'succeeded' | 'failed'>;
  attempts: Generated<number>;
  last_status_code: number | null;
  last_error: string | null;
  next_attempt_at: Generated<Date>;
  claimed_until: Date | null;
  created_at: Generated<Date>;
  delivered_at: Date | null;
}

export interface Database {
  projection_versions: ProjectionVersionsTable;
  parked_events: ParkedEventsTable;
  projection_rebuilds: ProjectionRebuildsTable;
  projection_leases: ProjectionLeasesTable;
  job_outbox: JobOutboxTable;
  idempotency_keys: IdempotencyKeysTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  statement_imports: StatementImportsTable;
  rules: RulesTable;
  rule_applications: RuleApplicationsTable;
  users: UsersTable;
  api_keys: ApiKeysTable;
  provider_identities: ProviderIdentitiesTable;
  sign_in_flows: SignInFlowsTable;
  sessions: SessionsTable;
  link_item_credentials: LinkItemCredentialsTable;
  sandbox_bank_public_tokens: SandboxBankPublicTokensTable;
  sandbox_bank_items: SandboxBankItemsTable;
  sandbox_bank_link_tokens: SandboxBankLinkTokensTable;
  bank_link_webhooks_received: BankLinkWebhooksReceivedTable;
  brokerage_link_users: BrokerageLinkUsersTable;
  brokerage_link_authorizations: BrokerageLinkAuthorizationsTable;
  sandbox_brokerage_users: SandboxBrokerageUsersTable;
  sandbox_brokerage_authorizations: SandboxBrokerageAuthorizationsTable;
  sandbox_brokerage_portal_sessions: SandboxBrokeragePortalSessionsTable;
  brokerage_portal_returns: BrokeragePortalReturnsTable;
  accounts: AccountsTable;
  transactions: TransactionsTable;
  transaction_activity: TransactionActivityTable;
  balance_snapshots: BalanceSnapshotsTable;
  tags: TagsTable;
  system_category_groups: SystemCategoryGroupsTable;
  system_categories: SystemCategoriesTable;
  category_taxonomies: CategoryTaxonomiesTable;
  category_groups: CategoryGroupsTable;
  categories: CategoriesTable;
  link_items: LinkItemsTable;
  brokerage_authorizations: BrokerageAuthorizationsTable;
  brokerage_accounts: BrokerageAccountsTable;
  brokerage_balances: BrokerageBalancesTable;
  brokerage_positions: BrokeragePositionsTable;
  brokerage_activities: BrokerageActivitiesTable;
  portfolio_snapshots: PortfolioSnapshotsTable;
  user_settings: UserSettingsTable;
  recurring_streams: RecurringStreamsTable;
  spending_transactions: SpendingTransactionsTable;
  spending_daily: SpendingAggregateTable;
  spending_monthly: SpendingAggregateTable;
}
