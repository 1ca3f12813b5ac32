import { Inject } from '@nestjs/common';
import { type IQueryHandler, Query, QueryHandler } from '@nestjs/cqrs';
import { type Kysely, type Selectable, sql } from 'kysely';
import type { AccountsTable } from '../../../projections/accounts/accounts.table.js';
import { NotFoundError } from '../../core/errors.js';
import { normaliseDecimal, toAmountNumber } from '../../core/money.js';
import type { Database } from '../../infrastructure/database/schema.js';
import { exists } from '../../infrastructure/event-store/append-guards.js';
import type { AppendGuard } from '../../infrastructure/event-store/event-store.port.js';
import { type IfMatch, ifMatchAllows, preconditionFailed, withEntityTag } from '../../infrastructure/http/entity-tags.js';
import { DATABASE } from '../../infrastructure/runtime/tokens.js';
import { availableBalance, effectiveCreditLimit } from './account-balances.js';
import type { AccountDetailResponse, AccountListItemResponse } from './http/account.responses.js';

type AccountRow = Selectable<AccountsTable>;

export class ListAccounts extends Query<{ accounts: AccountListItemResponse[] }> {
  constructor(readonly userId: string) {
    super();
  }
}

export class GetAccount extends Query<AccountDetailResponse> {
  constructor(
    readonly userId: string,
    readonly accountId: string,
  ) {
    super();
  }
}

/** One account as GET /accounts lists it (what a create answers, beside the spec's own create fields). */
export class GetAccountListItem extends Query<AccountListItemResponse> {
  constructor(
    readonly userId: string,
    readonly accountId: string,
  ) {
    super();
  }
}

@QueryHandler(ListAccounts)
export class ListAccountsHandler implements IQueryHandler<ListAccounts> {
  constructor(@Inject(DATABASE) private readonly db: Kysely<Database>) {}

  async execute({ userId }: ListAccounts) {
    const rows = await this.db.selectFrom('accounts').select(LIST_ITEM_COLUMNS).where('user_id', '=', userId).where('deleted_at', 'is', null).orderBy('created_at').orderBy('id').execute();
    return { accounts: rows.map(toListItem) };
  }
}

@QueryHandler(GetAccount)
export class GetAccountHandler implements IQueryHandler<GetAccount> {
  constructor(@Inject(DATABASE) private readonly db: Kysely<Database>) {}

  async execute({ userId, accountId }: GetAccount) {
    const row = await findLiveAccount(this.db, userId, accountId);
    if (!row) throw new NotFoundError('Account');
    return withEntityTag(toDetail(row), accountEntityTag(row));
  }
}

@QueryHandler(GetAccountListItem)
export class GetAccountListItemHandler implements IQueryHandler<GetAccountListItem> {
  constructor(@Inject(DATABASE) private readonly db: Kysely<Database>) {}

  async execute({ userId, accountId }: GetAccountListItem) {
    const row = await findLiveAccount(this.db, userId, accountId);
    if (!row) throw new NotFoundError('Account');
    return withEntityTag(toListItem(row), accountEntityTag(row));
  }
}

/**
 * An account's entity tag: a manual one's stream revision; a linked one's row also moves with its
 * connection's stream (balances, flags) and its holdings, so its tag names all three.
 */
export function accountEntityTag(row: Pick<AccountRow, 'source' | 'revision' | 'account_revision' | 'holdings_revision'>): string {
  return row.source === 'manual' ? String(row.revision) : `${row.revision}.${row.account_revision}.${row.holdings_revision}`;
}

/**
 * Refuses at once an account whose tag is not one the client named (412; a missing one is a 404),
 * and keeps the revisions it has as a condition of the append.
 */
export async function accountUnchangedSince(db: Kysely<Database>, userId: string, accountId: string, ifMatch: IfMatch): Promise<AppendGuard> {
  const row = await findLiveAccount(db, userId, accountId);
  if (!row) throw new NotFoundError('Account');
  if (!ifMatchAllows(ifMatch, accountEntityTag(row))) throw preconditionFailed('Account');
  const unchanged = db
    .selectFrom('accounts')
    .select(sql`1`.as('found'))
    .where('id', '=', accountId)
    .where('user_id', '=', userId)
    .where('deleted_at', 'is', null)
    .where('revision', '=', row.revision)
    .where('account_revision', '=', row.account_revision)
    .where('holdings_revision', '=', row.holdings_revision);
  return { condition: exists(db, unchanged), refusal: () => preconditionFailed('Account') };
}

export function findLiveAccount(db: Kysely<Database>, userId: string, accountId: string): Promise<AccountRow | undefined> {
  return db.selectFrom('accounts').selectAll().where('id', '=', accountId).where('user_id', '=', userId).where('deleted_at', 'is', null).executeTakeFirst();
}

/**
 * An `accountId` filter must name accounts the operation covers: the user's live accounts (but
 * `excludeSource`'s); any other id — another user's, a deleted one, none at all — is a 404, never
 * an empty answer that reads like "nothing happened there".
 */
export async function requireLiveAccounts(db: Kysely<Database>, userId: string, accountIds: readonly string[], excludeSource?: string): Promise<void> {
  const wanted = [...new Set(accountIds)];
  if (wanted.length === 0) return;
  let query = db.selectFrom('accounts').select('id').where('user_id', '=', userId).where('deleted_at', 'is', null).where('id', 'in', wanted);
  if (excludeSource) query = query.where('source', '<>', excludeSource);
  const found = await query.execute();
  if (found.length < wanted.length) throw new NotFoundError('Account');
}

/** The columns a list item is made of: a list reads (and parses) these, not the whole row. */
const LIST_ITEM_COLUMNS = [
  'id',
  'mask',
  'name',
  'source',
  'subtype',
  'type',
  'link_item_id',
  'currency',
  'current',
  'credit_limit',
  'updated_at',
  'user_override_credit_limit',
  'institution_name',
  'new_accounts_available',
  'institution_logo',
  'institution_url',
  'pending_disconnect_at',
  'needs_reauth',
] as const;

type ListItemRow = Pick<AccountRow, (typeof LIST_ITEM_COLUMNS)[number]>;

/** What the list item and the detail say alike of an account. */
function sharedFields(row: ListItemRow) {
  return {
    id: row.id,
    mask: row.mask,
    name: row.name,
    source: row.source,
    subtype: row.subtype,
    type: row.type,
    linkItemId: row.link_item_id,
    currency: row.currency,
    current: toAmountNumber(row.current),
    creditLimit: toAmountNumber(row.credit_limit),
    updatedAt: row.updated_at.toISOString(),
    userOverrideCreditLimit: toAmountNumber(row.user_override_credit_limit),
    institutionName: row.institution_name,
    newAccountsAvailable: row.new_accounts_available,
    logo: row.institution_logo,
    url: row.institution_url,
    pendingDisconnectAt: row.pending_disconnect_at?.toISOString() ?? null,
  };
}

function toListItem(row: ListItemRow): AccountListItemResponse {
  return {
    ...sharedFields(row),
    canAddInvestments: false,
    hasInvestments: row.type === 'investment',
    hasLiabilities: row.type === 'credit_card' || row.type === 'loan',
    needsReauth: row.needs_reauth,
  };
}

export function toDetail(row: AccountRow): AccountDetailResponse {
  if (row.source !== 'manual') return linkedDetail(row);
  const limit = effectiveCreditLimit(row.credit_limit, row.user_override_credit_limit);
  const available = row.current === null ? null : row.type === 'credit_card' && limit === null ? null : availableBalance(row.type, normaliseDecimal(row.current), limit && normaliseDecimal(limit));
  return {
    ...sharedFields(row),
    available: toAmountNumber(available),
    billedProducts: null,
    institutionId: null,
    hasInvestmentAccounts: row.type === 'investment',
  };
}

/** A linked account's (bank or brokerage) balances are the provider's, as it reported them (signed as the port says). */
function linkedDetail(row: AccountRow): AccountDetailResponse {
  return {
    ...sharedFields(row),
    available: toAmountNumber(row.available),
    billedProducts: row.billed_products,
    institutionId: row.institution_id,
    hasInvestmentAccounts: row.type === 'investment',
  };
}
