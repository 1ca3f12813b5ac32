import type { Kysely } from 'kysely';
import { normaliseDecimal } from '../../../core/money.js';
import type { Database } from '../../../infrastructure/database/schema.js';
import type { BrokerageAccountListItemResponse } from './brokerage-views.responses.js';

/**
 * Investment accounts that no brokerage connection brought — made by hand (`manual`) or linked
 * through a bank-link item (`bank_link`) — as the brokerage account list shows them beside the
 * connected ones: the spec's list item names both sources, with no authorization and no
 * `needsReauth`. They have no provider valuation (cash, buying power): `balances` is empty and
 * `accountDetails.balance` is the account's own balance.
 */
export interface OtherInvestmentAccountRow {
  id: string;
  source: string;
  name: string;
  subtype: string | null;
  institution_name: string | null;
  link_account_id: string | null;
  current: string | null;
  created_at: Date;
}

export function otherInvestmentAccountRows(db: Kysely<Database>, userId: string): Promise<OtherInvestmentAccountRow[]> {
  return db
    .selectFrom('accounts')
    .select(['id', 'source', 'name', 'subtype', 'institution_name', 'link_account_id', 'current', 'created_at'])
    .where('user_id', '=', userId)
    .where('type', '=', 'investment')
    .where('source', '<>', 'brokerage_link')
    .where('deleted_at', 'is', null)
    .orderBy('created_at')
    .orderBy('name')
    .orderBy('id')
    .execute();
}

/** Whether `accountId` names one of them (what an `accountId` filter of the brokerage views may name besides connected accounts). */
export async function isOtherInvestmentAccount(db: Kysely<Database>, userId: string, accountId: string): Promise<boolean> {
  const row = await db
    .selectFrom('accounts')
    .select('id')
    .where('id', '=', accountId)
    .where('user_id', '=', userId)
    .where('type', '=', 'investment')
    .where('source', '<>', 'brokerage_link')
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return row !== undefined;
}

export function toOtherInvestmentAccountListItem(row: OtherInvestmentAccountRow): BrokerageAccountListItemResponse {
  return {
    id: row.id,
    name: row.name,
    institutionName: row.institution_name,
    // The account's kind in the service's vocabulary (brokerage, ira, roth, 401k, …): the provider type of a connected account says the same.
    accountType: row.subtype,
    // Listed accounts are open: a deleted one leaves the list.
    accountStatus: 'open',
    source: row.source,
    needsReauth: false,
    brokerageAuthorizationId: null,
    // A bank-link account's id at its provider is its linkAccountId; a manual one has only the service's id.
    accountDetails: { id: row.link_account_id ?? row.id, balance: row.current === null ? null : normaliseDecimal(row.current), lastSync: null },
    balances: [],
    ...(row.link_account_id === null ? {} : { linkAccountId: row.link_account_id }),
  };
}
