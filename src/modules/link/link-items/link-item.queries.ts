import { Inject } from '@nestjs/common';
import { type IQueryHandler, Query, QueryHandler } from '@nestjs/cqrs';
import type { Kysely, Selectable } from 'kysely';
import type { LinkItemsTable } from '../../../../projections/link-items/link-items.table.js';
import { NotFoundError } from '../../../core/errors.js';
import type { Database } from '../../../infrastructure/database/schema.js';
import { DATABASE } from '../../../infrastructure/runtime/tokens.js';
import type { LinkAccountResponse, LinkItemAlertResponse, LinkItemResponse } from '../http/link.responses.js';

export class ListLinkItems extends Query<{ items: LinkItemResponse[] }> {
  constructor(readonly userId: string) {
    super();
  }
}

export class GetLinkItem extends Query<LinkItemResponse> {
  constructor(
    readonly userId: string,
    readonly linkItemId: string,
  ) {
    super();
  }
}

export class ListLinkItemAlerts extends Query<{ alerts: LinkItemAlertResponse[] }> {
  constructor(readonly userId: string) {
    super();
  }
}

export class ListLinkAccounts extends Query<{ accounts: LinkAccountResponse[] }> {
  constructor(
    readonly userId: string,
    readonly linkItemId: string,
  ) {
    super();
  }
}

const liveItems = (db: Kysely<Database>, userId: string) => db.selectFrom('link_items').selectAll().where('user_id', '=', userId).where('disconnected_at', 'is', null);

@QueryHandler(ListLinkItems)
export class ListLinkItemsHandler implements IQueryHandler<ListLinkItems> {
  constructor(@Inject(DATABASE) private readonly db: Kysely<Database>) {}

  async execute({ userId }: ListLinkItems) {
    const rows = await liveItems(this.db, userId).orderBy('created_at').orderBy('id').execute();
    return { items: rows.map(toLinkItem) };
  }
}

@QueryHandler(GetLinkItem)
export class GetLinkItemHandler implements IQueryHandler<GetLinkItem> {
  constructor(@Inject(DATABASE) private readonly db: Kysely<Database>) {}

  async execute({ userId, linkItemId }: GetLinkItem) {
    const row = await liveItems(this.db, userId).where('link_item_id', '=', linkItemId).executeTakeFirst();
    if (!row) throw new NotFoundError('Link item');
    return toLinkItem(row);
  }
}

@QueryHandler(ListLinkItemAlerts)
export class ListLinkItemAlertsHandler implements IQueryHandler<ListLinkItemAlerts> {
  constructor(@Inject(DATABASE) private readonly db: Kysely<Database>) {}

  async execute({ userId }: ListLinkItemAlerts) {
    const rows = await liveItems(this.db, userId)
      .where((eb) => eb.or([eb('needs_reauth', '=', true), eb('new_accounts_available', '=', true), eb('pending_disconnect_at', 'is not', null)]))
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return {
      alerts: rows.map((row) => ({
        linkItemId: row.link_item_id,
        institutionName: row.institution_name ?? 'Unknown institution',
        institutionLogo: row.institution_logo,
        needsReauth: row.needs_reauth,
        newAccountsAvailable: row.new_accounts_available,
        pendingDisconnectAt: row.pending_disconnect_at?.toISOString() ?? null,
      })),
    };
  }
}

@QueryHandler(ListLinkAccounts)
export class ListLinkAccountsHandler implements IQueryHandler<ListLinkAccounts> {
  constructor(@Inject(DATABASE) private readonly db: Kysely<Database>) {}

  async execute({ userId, linkItemId }: ListLinkAccounts) {
    const item = await liveItems(this.db, userId).where('link_item_id', '=', linkItemId).select('id').executeTakeFirst();
    if (!item) throw new NotFoundError('Link item');
    const rows = await this.db
      .selectFrom('accounts')
      .selectAll()
      .where('user_id', '=', userId)
      .where('link_item_uuid', '=', item.id)
      .where('deleted_at', 'is', null)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return {
      accounts: rows.map((row) => ({
        id: row.id,
        name: row.name,
        officialName: row.official_name,
        mask: row.mask,
        subtype: row.subtype,
        type: row.type,
        linkAccountId: row.link_account_id,
        linkItemId: row.link_item_id ?? linkItemId,
        createdAt: row.created_at.toISOString(),
        updatedAt: row.updated_at.toISOString(),
      })),
    };
  }
}

export function toLinkItem(row: Selectable<LinkItemsTable>): LinkItemResponse {
  return {
    id: row.id,
    linkItemId: row.link_item_id,
    userId: row.user_id,
    institutionId: row.institution_id,
    institutionName: row.institution_name,
    institutionLogo: row.institution_logo,
    availableProducts: row.available_products,
    billedProducts: row.billed_products,
    needsReauth: row.needs_reauth,
    newAccountsAvailable: row.new_accounts_available,
    pendingDisconnectAt: row.pending_disconnect_at?.toISOString() ?? null,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}
