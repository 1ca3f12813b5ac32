import type { Kysely } from 'kysely';
import type { RecordedEvent } from '../../src/core/events.js';
import type { Database } from '../../src/infrastructure/database/schema.js';
import type { LinkedAccountData, LinkInstitution, LinkItemEvent } from '../../src/modules/link/link-items/link-item.js';

/**
 * A link item's events as rows of `accounts`: its accounts appear when it is linked, carry its
 * state flags, and leave the list when the user disconnects one of them or the whole item. All rows of one item reflect the item's
 * stream, so its revision guards them all.
 */
export async function applyLinkItemEvent(trx: Kysely<Database>, recorded: RecordedEvent<LinkItemEvent>): Promise<void> {
  const event = { type: recorded.type, data: recorded.data } as LinkItemEvent;
  const at = new Date(recorded.metadata.occurredAt);
  const revision = Number(recorded.revision);
  const rows = trx.updateTable('accounts').where('link_item_uuid', '=', event.data.linkItemUuid).where('revision', '<', revision);
  switch (event.type) {
    case 'LinkItemLinked':
      await insertLinkedAccounts(trx, recorded, event.data, event.data.accounts);
      return;
    case 'LinkItemReconnected':
      // The item's alerts clear on every row it has, then the accounts the user added join it.
      await rows.set({ needs_reauth: false, new_accounts_available: false, pending_disconnect_at: null, updated_at: at, revision }).execute();
      await insertLinkedAccounts(trx, recorded, event.data, event.data.addedAccounts);
      return;
    case 'LinkItemLoginRequired':
    case 'LinkItemErrored':
      await rows.set({ needs_reauth: true, updated_at: at, revision }).execute();
      return;
    case 'LinkItemLoginRepaired':
      await rows.set({ needs_reauth: false, updated_at: at, revision }).execute();
      return;
    case 'LinkItemPendingDisconnect':
      await rows.set({ pending_disconnect_at: new Date(event.data.disconnectAt), updated_at: at, revision }).execute();
      return;
    case 'LinkItemNewAccountsAvailable':
      await rows.set({ new_accounts_available: true, updated_at: at, revision }).execute();
      return;
    case 'LinkItemAccountDisconnected':
      await rows.where('id', '=', event.data.accountId).set({ deleted_at: at, updated_at: at, revision }).execute();
      return;
    case 'LinkItemDisconnected':
      await rows.where('deleted_at', 'is', null).set({ deleted_at: at, updated_at: at, revision }).execute();
      return;
    case 'LinkItemBalancesRefreshed':
      // Only the accounts whose balances moved; the user's own limit (user_override_credit_limit) stays.
      for (const balance of event.data.balances) {
        await rows
          .where('id', '=', balance.accountId)
          .set({ current: balance.current, available: balance.available, credit_limit: balance.limit, updated_at: at, revision })
          .execute();
      }
      return;
    default:
      return;
  }
}

async function insertLinkedAccounts(
  trx: Kysely<Database>,
  recorded: RecordedEvent<LinkItemEvent>,
  item: { linkItemUuid: string; linkItemId: string; institution: LinkInstitution; billedProducts: string[] },
  accounts: readonly LinkedAccountData[],
): Promise<void> {
  if (accounts.length === 0) return;
  const at = new Date(recorded.metadata.occurredAt);
  const { institution } = item;
  await trx
    .insertInto('accounts')
    .values(
      accounts.map((account) => ({
        id: account.accountId,
        user_id: recorded.metadata.userId,
        source: 'bank_link',
        name: account.name,
        type: account.type,
        subtype: account.subtype,
        mask: account.mask,
        currency: account.currency,
        institution_name: institution.name,
        current: account.balances.current,
        credit_limit: account.balances.limit,
        user_override_credit_limit: null,
        created_at: at,
        updated_at: at,
        deleted_at: null,
        revision: Number(recorded.revision),
        link_item_uuid: item.linkItemUuid,
        link_item_id: item.linkItemId,
        link_account_id: account.linkAccountId,
        official_name: account.officialName,
        institution_id: institution.id,
        institution_logo: institution.logo,
        institution_url: institution.url,
        available: account.balances.available,
        billed_products: item.billedProducts,
        needs_reauth: false,
        new_accounts_available: false,
        pending_disconnect_at: null,
        account_revision: -1,
      })),
    )
    .onConflict((conflict) => conflict.column('id').doNothing())
    .execute();
}
