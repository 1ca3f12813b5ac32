import type { Selectable } from 'kysely';
import type { TransactionsTable } from '../../../projections/transactions/transactions.table.js';
import { systemCategoriesOf } from '../categories/user-categories.js';
import type { TagSummary } from '../tags/tag-directory.js';
import type { CounterpartyResponse, TransactionResponse } from './http/transaction.responses.js';

export type TransactionRow = Selectable<TransactionsTable> & {
  account_name: string;
  account_type: string;
  account_subtype: string | null;
  institution_name: string | null;
};

/** `liveTags`: the row's tags that are not deleted (see liveTagsById); a deleted one is left out even before its fan-out has run. */
export function toTransactionResponse(userId: string, row: TransactionRow, liveTags: ReadonlyMap<string, TagSummary> = new Map()): TransactionResponse {
  const tags = row.tag_ids.flatMap((tagId) => liveTags.get(tagId) ?? []);
  const category = row.category_id ? systemCategoriesOf(userId).get(row.category_id) : undefined;
  return {
    id: row.id,
    accountId: row.account_id,
    accountName: row.account_name,
    accountType: row.account_type,
    accountSubtype: row.account_subtype,
    accountLogoDomain: null,
    amount: Number(row.amount),
    authorizedDate: row.authorized_date,
    date: row.date,
    category: category
      ? { id: category.id, name: category.name, iconKey: category.iconKey, systemKey: category.systemKey, groupName: category.groupName, groupSystemKey: category.groupSystemKey }
      : null,
    counterparties: row.counterparties as CounterpartyResponse[] | null,
    institutionLogo: null,
    institutionName: row.institution_name,
    institutionUrl: null,
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
  };
}
