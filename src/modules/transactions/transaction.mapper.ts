import type { Selectable } from 'kysely';
import type { TransactionsTable } from '../../../projections/transactions/transactions.table.js';
import { type JoinedCategoryColumns, joinedCategoryOf } from '../categories/category-directory.js';
import type { CategorySummary } from '../categories/user-categories.js';
import type { TagSummary } from '../tags/tag-directory.js';
import type { CounterpartyResponse, TransactionResponse } from './http/transaction.responses.js';

export type TransactionRow = Selectable<TransactionsTable> & {
  account_name: string;
  account_type: string;
  account_subtype: string | null;
  institution_name: string | null;
  institution_logo: string | null;
  institution_url: string | null;
} & JoinedCategoryColumns;

/**
 * `liveTags`: the row's tags that are not deleted (see liveTagsById); a deleted one is left out even
 * before its fan-out has run. `splitCategories`: the categories its parts name (see splitCategoryIdsOf).
 */
export function toTransactionResponse(row: TransactionRow, liveTags: ReadonlyMap<string, TagSummary> = new Map(), splitCategories: ReadonlyMap<string, CategorySummary> = new Map()): TransactionResponse {
  const tags = row.tag_ids.flatMap((tagId) => liveTags.get(tagId) ?? []);
  return {
    id: row.id,
    accountId: row.account_id,
    accountName: row.account_name,
    accountType: row.account_type,
    accountSubtype: row.account_subtype,
    accountLogoDomain: logoDomainOf(row.institution_url),
    amount: Number(row.amount),
    authorizedDate: row.authorized_date,
    date: row.date,
    category: joinedCategoryOf(row),
    counterparties: row.counterparties as CounterpartyResponse[] | null,
    institutionLogo: row.institution_logo,
    institutionName: row.institution_name,
    institutionUrl: row.institution_url,
    location: row.location,
    lockedFields: row.locked_fields,
    logoUrl: row.logo_url,
    merchantName: row.merchant_name,
    name: row.name,
    notes: row.notes,
    paymentChannel: row.payment_channel,
    pending: row.pending,
    linkAccountId: row.link_account_id,
    source: row.source,
    tagIds: tags.map((tag) => tag.id),
    tags: tags.map((tag) => ({ id: tag.id, name: tag.name, color: tag.color })),
    website: row.website,
    transfer: row.transfer_transaction_id && row.transfer_account_id ? { transactionId: row.transfer_transaction_id, accountId: row.transfer_account_id } : null,
    splits: row.splits.map((part) => ({
      id: part.id,
      amount: Number(part.amount),
      category: part.category_id === null ? null : (splitCategories.get(part.category_id) ?? null),
      notes: part.notes,
    })),
  };
}

/** The categories a page's split parts name: read once for the page, and only when something is split. */
export function splitCategoryIdsOf(rows: readonly Pick<TransactionRow, 'splits'>[]): string[] {
  return rows.flatMap((row) => row.splits.flatMap((part) => (part.category_id === null ? [] : [part.category_id])));
}

/**
 * The host of the account's institution site without its `www.`, the domain a logo service is
 * asked for (`https://www.harborpointbank.example` → `harborpointbank.example`); null without one.
 */
export function logoDomainOf(institutionUrl: string | null): string | null {
  if (institutionUrl === null) return null;
  try {
    return new URL(institutionUrl).hostname.replace(/^www\./, '') || null;
  } catch {
    return null;
  }
}

