import { type Kysely, sql } from 'kysely';

/** One connection to a brokerage, from its `brokerage-authorization-<uuid>` stream. */
export interface BrokerageAuthorizationsTable {
  /** The service's UUID (the stream's). */
  id: string;
  user_id: string;
  /** The provider's authorization id: `brokerageAuthorizationId` in the API. */
  brokerage_authorization_id: string;
  provider: string;
  brokerage_id: string;
  brokerage_name: string;
  brokerage_logo: string | null;
  /** Set while the provider has dropped the connection: its accounts show `needsReauth`. */
  disabled_at: Date | null;
  disabled_reason: string | null;
  created_at: Date;
  updated_at: Date;
  /** The authorization stream's revision the row reflects. */
  revision: number;
}

/** One investment account, as its authorization brought it. */
export interface BrokerageAccountsTable {
  /** The service's UUID: the same id in /accounts and every `accountId`. */
  id: string;
  user_id: string;
  authorization_uuid: string;
  /** The provider's account id: `brokerageAccountId`, `accountDetails.id`. */
  brokerage_account_id: string;
  name: string;
  number: string;
  institution_name: string;
  account_type: string;
  account_status: string;
  currency: string;
  created_at: Date;
  updated_at: Date;
}

/** An account's latest valuation (one row per account): cash, buying power and what its positions are worth. */
export interface BrokerageBalancesTable {
  id: string;
  account_id: string;
  user_id: string;
  currency: string;
  cash: string;
  buying_power: string;
  holdings_value: string;
  total_value: string;
  /** The valuation's `asOf`. */
  last_sync: Date;
  created_at: Date;
  updated_at: Date;
  /** The account stream's revision the row (and the account's positions) reflect. */
  revision: number;
}

/** The positions of an account's latest valuation: replaced as a whole with it. */
export interface BrokeragePositionsTable {
  id: string;
  account_id: string;
  user_id: string;
  symbol: string;
  description: string;
  currency: string;
  units: string;
  average_price: string;
  price: string;
  market_value: string;
}

export interface BrokerageActivitiesTable {
  /** The service's UUID for the activity. */
  id: string;
  account_id: string;
  user_id: string;
  /** The provider's activity id: `activityId` in the API. */
  provider_activity_id: string;
  type: string;
  symbol: string | null;
  description: string;
  currency: string;
  amount: string;
  fee: string;
  price: string | null;
  units: string | null;
  trade_date: string;
  settlement_date: string;
  /** When the sync imported it. */
  created_at: Date;
}

export interface PortfolioSnapshotsTable {
  id: string;
  account_id: string;
  user_id: string;
  date: string;
  total_value: string;
  cash_value: string;
  holdings_value: string;
  currency: string;
  taken_at: Date;
  revision: number;
}

/** Money in numeric(19,4) as everywhere; units and prices with room for fractional shares. */
export async function createBrokerageTables(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE brokerage_authorizations (
      id uuid PRIMARY KEY,
      user_id uuid NOT NULL,
      brokerage_authorization_id text NOT NULL,
      provider text NOT NULL,
      brokerage_id text NOT NULL,
      brokerage_name text NOT NULL,
      brokerage_logo text,
      disabled_at timestamptz,
      disabled_reason text,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      revision bigint NOT NULL
    )`.execute(db);
  await sql`CREATE INDEX brokerage_authorizations_by_user ON brokerage_authorizations (user_id)`.execute(db);
  await sql`
    CREATE TABLE brokerage_accounts (
      id uuid PRIMARY KEY,
      user_id uuid NOT NULL,
      authorization_uuid uuid NOT NULL,
      brokerage_account_id text NOT NULL,
      name text NOT NULL,
      number text NOT NULL,
      institution_name text NOT NULL,
      account_type text NOT NULL,
      account_status text NOT NULL,
      currency text NOT NULL,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    )`.execute(db);
  await sql`CREATE INDEX brokerage_accounts_by_user ON brokerage_accounts (user_id, created_at, id)`.execute(db);
  await sql`
    CREATE TABLE brokerage_balances (
      id uuid PRIMARY KEY,
      account_id uuid NOT NULL UNIQUE,
      user_id uuid NOT NULL,
      currency text NOT NULL,
      cash numeric(19, 4) NOT NULL,
      buying_power numeric(19, 4) NOT NULL,
      holdings_value numeric(19, 4) NOT NULL,
      total_value numeric(19, 4) NOT NULL,
      last_sync timestamptz NOT NULL,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      revision bigint NOT NULL
    )`.execute(db);
  await sql`CREATE INDEX brokerage_balances_by_user ON brokerage_balances (user_id)`.execute(db);
  await sql`
    CREATE TABLE brokerage_positions (
      id uuid PRIMARY KEY,
      account_id uuid NOT NULL,
      user_id uuid NOT NULL,
      symbol text NOT NULL,
      description text NOT NULL,
      currency text NOT NULL,
      units numeric(28, 8) NOT NULL,
      average_price numeric(28, 8) NOT NULL,
      price numeric(28, 8) NOT NULL,
      market_value numeric(19, 4) NOT NULL,
      UNIQUE (account_id, symbol)
    )`.execute(db);
  await sql`CREATE INDEX brokerage_positions_by_user ON brokerage_positions (user_id, account_id, symbol)`.execute(db);
  await sql`
    CREATE TABLE brokerage_activities (
      id uuid PRIMARY KEY,
      account_id uuid NOT NULL,
      user_id uuid NOT NULL,
      provider_activity_id text NOT NULL,
      type text NOT NULL,
      symbol text,
      description text NOT NULL,
      currency text NOT NULL,
      amount numeric(19, 4) NOT NULL,
      fee numeric(19, 4) NOT NULL,
      price numeric(28, 8),
      units numeric(28, 8),
      trade_date date NOT NULL,
      settlement_date date NOT NULL,
      created_at timestamptz NOT NULL
    )`.execute(db);
  // Newest first, for one user or one of their accounts; the id keeps the order total.
  await sql`CREATE INDEX brokerage_activities_by_user ON brokerage_activities (user_id, trade_date DESC, created_at DESC, id DESC)`.execute(db);
  await sql`CREATE INDEX brokerage_activities_by_account ON brokerage_activities (account_id, trade_date DESC, created_at DESC, id DESC)`.execute(db);
  await sql`
    CREATE TABLE portfolio_snapshots (
      id uuid PRIMARY KEY,
      account_id uuid NOT NULL,
      user_id uuid NOT NULL,
      date date NOT NULL,
      total_value numeric(19, 4) NOT NULL,
      cash_value numeric(19, 4) NOT NULL,
      holdings_value numeric(19, 4) NOT NULL,
      currency text NOT NULL,
      taken_at timestamptz NOT NULL,
      revision bigint NOT NULL,
      UNIQUE (account_id, date)
    )`.execute(db);
  await sql`CREATE INDEX portfolio_snapshots_by_user ON portfolio_snapshots (user_id, date, account_id)`.execute(db);
}
