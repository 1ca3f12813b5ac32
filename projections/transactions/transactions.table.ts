import { type Kysely, sql } from 'kysely';
import type { TransactionLocation } from '../../src/modules/transactions/transaction.js';

export interface TransactionsTable {
  id: string;
  user_id: string;
  account_id: string;
  source: string;
  amount: string;
  date: string;
  authorized_date: string | null;
  name: string;
  merchant_name: string | null;
  category_id: string | null;
  notes: string | null;
  payment_channel: string | null;
  pending: boolean;
  location: TransactionLocation | null;
  counterparties: unknown[] | null;
  tag_ids: string[];
  locked_fields: string[];
  link_account_id: string | null;
  logo_url: string | null;
  website: string | null;
  /** The other side of a transfer between the user's accounts (decision 0043). */
  transfer_transaction_id: string | null;
  transfer_account_id: string | null;
  /** The parts of a split transaction, `[]` when not split. */
  splits: StoredSplitPart[];
  created_at: Date;
  updated_at: Date;
  revision: number;
}

export interface StoredSplitPart {
  id: string;
  amount: string;
  category_id: string | null;
  notes: string | null;
}

export async function createTransactionsTable(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE transactions (
      id uuid PRIMARY KEY,
      user_id uuid NOT NULL,
      account_id uuid NOT NULL,
      source text NOT NULL,
      amount numeric(19, 4) NOT NULL,
      date date NOT NULL,
      authorized_date date,
      name text NOT NULL,
      merchant_name text,
      category_id uuid,
      notes text,
      payment_channel text,
      pending boolean NOT NULL,
      location jsonb,
      counterparties jsonb,
      tag_ids uuid[] NOT NULL DEFAULT '{}',
      locked_fields text[] NOT NULL DEFAULT '{}',
      link_account_id text,
      logo_url text,
      website text,
      transfer_transaction_id uuid,
      transfer_account_id uuid,
      splits jsonb NOT NULL DEFAULT '[]',
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      revision bigint NOT NULL
    )`.execute(db);
  // The list's keyset order: newest first by date, then createdAt, then id.
  await sql`CREATE INDEX transactions_newest_first ON transactions (user_id, date DESC, created_at DESC, id DESC)`.execute(db);
  await sql`CREATE INDEX transactions_by_account ON transactions (account_id, date DESC, created_at DESC, id DESC)`.execute(db);
  // The tagId filter and each tag's usage count: which transactions carry a tag.
  await sql`CREATE INDEX transactions_by_tag ON transactions USING gin (tag_ids)`.execute(db);
  // Who is paired with a transaction that leaves; and automatic pairing's look for a mirror amount.
  await sql`CREATE INDEX transactions_by_transfer ON transactions (transfer_transaction_id) WHERE transfer_transaction_id IS NOT NULL`.execute(db);
  await sql`CREATE INDEX transactions_by_amount ON transactions (user_id, amount, date)`.execute(db);
}
