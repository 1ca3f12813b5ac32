import { type Insertable, type Transaction, sql } from 'kysely';
import type { Database } from '../../src/infrastructure/database/schema.js';
import { type EditableField, LOCKED_FIELD_OF, type TransactionEdited } from '../../src/modules/transactions/transaction.js';
import { counterpartyRowOf } from '../../src/modules/transactions/imported-transaction.js';
import type { TransactionsTable } from './transactions.table.js';

const COLUMN_OF: Record<EditableField, string> = {
  name: 'name',
  merchantName: 'merchant_name',
  amount: 'amount',
  date: 'date',
  categoryId: 'category_id',
  notes: 'notes',
  paymentChannel: 'payment_channel',
  location: 'location',
  tagIds: 'tag_ids',
};

/** Several edits of one transaction inside a batch, folded: the last value and lock of each field win. */
export interface MergedEdit {
  readonly changes: Record<string, unknown>;
  readonly locks: Map<string, boolean>;
  revision: number;
  updatedAt: Date;
}

export function mergeEdit(edits: Map<string, MergedEdit>, event: TransactionEdited, revision: number, at: Date): void {
  const merged = mergedEditOf(edits, event.data.transactionId, revision, at);
  for (const change of event.data.changes) {
    merged.changes[COLUMN_OF[change.field]] = change.newValue;
    merged.locks.set(LOCKED_FIELD_OF[change.field], change.locked);
  }
  const provider = event.data.provider;
  if (provider) {
    // What only the provider sets follows its latest word.
    merged.changes.pending = provider.pending;
    merged.changes.authorized_date = provider.authorizedDate;
    merged.changes.counterparties = provider.counterparties.map(counterpartyRowOf);
    merged.changes.logo_url = provider.logoUrl;
    merged.changes.website = provider.website;
  }
}

/** A change of columns no user field names (the transfer, the splits), folded like an edit. */
export function mergeColumns(edits: Map<string, MergedEdit>, transactionId: string, columns: Record<string, unknown>, revision: number, at: Date): void {
  Object.assign(mergedEditOf(edits, transactionId, revision, at).changes, columns);
}

function mergedEditOf(edits: Map<string, MergedEdit>, transactionId: string, revision: number, at: Date): MergedEdit {
  const merged: MergedEdit = edits.get(transactionId) ?? { changes: {}, locks: new Map(), revision, updatedAt: at };
  merged.revision = revision;
  merged.updatedAt = at;
  edits.set(transactionId, merged);
  return merged;
}

/**
 * New rows as one JSON document: PostgreSQL takes it apart faster than the client builds and
 * escapes a VALUES list of every column (a 100k-transaction sync inserts 200 of them). JSON text
 * fields (location, counterparties) arrive as the strings the rows hold.
 */
export async function insertTransactions(trx: Transaction<Database>, rows: Insertable<TransactionsTable>[]): Promise<void> {
  if (rows.length === 0) return;
  await sql`
    INSERT INTO transactions (id, user_id, account_id, source, amount, date, authorized_date, name, merchant_name, category_id, notes, payment_channel, pending,
                              location, counterparties, tag_ids, locked_fields, link_account_id, logo_url, website, created_at, updated_at, revision)
    SELECT r.id, r.user_id, r.account_id, r.source, r.amount, r.date, r.authorized_date, r.name, r.merchant_name, r.category_id, r.notes, r.payment_channel, r.pending,
           r.location::jsonb, r.counterparties::jsonb, coalesce(r.tag_ids, '{}'), coalesce(r.locked_fields, '{}'), r.link_account_id, r.logo_url, r.website, r.created_at, r.updated_at, r.revision
      FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS r(
        id uuid, user_id uuid, account_id uuid, source text, amount numeric, date date, authorized_date date, name text, merchant_name text, category_id uuid,
        notes text, payment_channel text, pending boolean, location text, counterparties text, tag_ids uuid[], locked_fields text[], link_account_id text,
        logo_url text, website text, created_at timestamptz, updated_at timestamptz, revision bigint)
    ON CONFLICT (id) DO NOTHING`.execute(trx);
}

/**
 * Every merged edit of a batch in one UPDATE: each row takes the fields its edits named and keeps
 * the rest, so a busy batch costs one round trip, not one per event.
 */
export async function updateTransactions(trx: Transaction<Database>, edits: Map<string, MergedEdit>): Promise<void> {
  if (edits.size === 0) return;
  const records = [...edits].map(([id, edit]) => ({
    id,
    changes: edit.changes,
    lock: [...edit.locks].filter(([, locked]) => locked).map(([field]) => field),
    unlock: [...edit.locks].filter(([, locked]) => !locked).map(([field]) => field),
    updated_at: edit.updatedAt.toISOString(),
    revision: edit.revision,
  }));
  const text = (column: string) => sql.raw(`CASE WHEN c.changes ? '${column}' THEN c.changes->>'${column}' ELSE t.${column} END`);
  const typed = (column: string, type: string) => sql.raw(`CASE WHEN c.changes ? '${column}' THEN (c.changes->>'${column}')::${type} ELSE t.${column} END`);
  await sql`
    UPDATE transactions AS t SET
      name = ${text('name')},
      merchant_name = ${text('merchant_name')},
      notes = ${text('notes')},
      payment_channel = ${text('payment_channel')},
      amount = ${typed('amount', 'numeric')},
      date = ${typed('date', 'date')},
      category_id = ${typed('category_id', 'uuid')},
      pending = ${typed('pending', 'boolean')},
      authorized_date = ${typed('authorized_date', 'date')},
      logo_url = ${text('logo_url')},
      website = ${text('website')},
      counterparties = CASE WHEN c.changes ? 'counterparties' THEN c.changes->'counterparties' ELSE t.counterparties END,
      location = CASE WHEN c.changes ? 'location' THEN nullif(c.changes->'location', 'null'::jsonb) ELSE t.location END,
      transfer_transaction_id = ${typed('transfer_transaction_id', 'uuid')},
      transfer_account_id = ${typed('transfer_account_id', 'uuid')},
      splits = CASE WHEN c.changes ? 'splits' THEN c.changes->'splits' ELSE t.splits END,
      tag_ids = CASE WHEN c.changes ? 'tag_ids' THEN ARRAY(SELECT jsonb_array_elements_text(c.changes->'tag_ids'))::uuid[] ELSE t.tag_ids END,
      locked_fields = ARRAY(SELECT DISTINCT field FROM unnest(t.locked_fields || c.lock) AS field WHERE field <> ALL(c.unlock) ORDER BY field),
      updated_at = c.updated_at,
      revision = c.revision
    FROM jsonb_to_recordset(${JSON.stringify(records)}::jsonb)
      AS c(id uuid, changes jsonb, lock text[], unlock text[], updated_at timestamptz, revision bigint)
    WHERE t.id = c.id AND t.revision < c.revision`.execute(trx);
}

export async function deleteTransactions(trx: Transaction<Database>, ids: string[]): Promise<void> {
  if (ids.length > 0) await trx.deleteFrom('transactions').where('id', 'in', ids).execute();
}
