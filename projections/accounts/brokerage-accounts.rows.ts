import type { Kysely } from 'kysely';
import type { RecordedEvent } from '../../src/core/events.js';
import type { Database } from '../../src/infrastructure/database/schema.js';
import { investmentSubtypeOf, maskOf } from '../../src/modules/brokerage/accounts/brokerage-account.mapping.js';
import type { BrokerageAccountData, BrokerageAuthorizationEvent, BrokerageHoldingsRefreshed, BrokerageInstitution } from '../../src/modules/brokerage/brokerage.events.js';

/**
 * A brokerage authorization's events as rows of `accounts`: its investment accounts appear when
 * it is connected (source `brokerage_link`, type `investment`), show `needsReauth` while it is
 * disabled, gain the accounts a reconnect brings, and leave the list when the user disconnects one
 * of them or the whole authorization. All rows of one authorization reflect its stream, so its
 * revision (`revision`) guards them all.
 */
export async function applyBrokerageAuthorizationEvent(trx: Kysely<Database>, recorded: RecordedEvent<BrokerageAuthorizationEvent>): Promise<void> {
  const event = { type: recorded.type, data: recorded.data } as BrokerageAuthorizationEvent;
  const at = new Date(recorded.metadata.occurredAt);
  const revision = Number(recorded.revision);
  const rows = trx.updateTable('accounts').where('brokerage_authorization_uuid', '=', event.data.authorizationUuid).where('revision', '<', revision);
  switch (event.type) {
    case 'BrokerageAuthorizationConnected':
      await insertBrokerageAccounts(trx, recorded, event.data, event.data.accounts);
      return;
    case 'BrokerageAuthorizationDisabled':
      await rows.set({ needs_reauth: true, updated_at: at, revision }).execute();
      return;
    case 'BrokerageAuthorizationReconnected': {
      // The brokerage is the one the authorization was connected with: its other rows say which.
      const known = await trx
        .selectFrom('accounts')
        .select(['brokerage_authorization_id', 'institution_id', 'institution_name', 'institution_logo'])
        .where('brokerage_authorization_uuid', '=', event.data.authorizationUuid)
        .executeTakeFirst();
      await rows.set({ needs_reauth: false, updated_at: at, revision }).execute();
      if (!known) return;
      const brokerage = { id: known.institution_id ?? '', name: known.institution_name ?? '', logo: known.institution_logo };
      await insertBrokerageAccounts(trx, recorded, { authorizationUuid: event.data.authorizationUuid, brokerageAuthorizationId: known.brokerage_authorization_id ?? '', brokerage }, event.data.addedAccounts);
      return;
    }
    case 'BrokerageAuthorizationAccountDisconnected':
      await rows.where('id', '=', event.data.accountId).set({ deleted_at: at, updated_at: at, revision }).execute();
      return;
    case 'BrokerageAuthorizationDisconnected':
      await rows.where('deleted_at', 'is', null).set({ deleted_at: at, updated_at: at, revision }).execute();
      return;
    default:
      return;
  }
}

/** An account's holdings as its balance: `current` is their total value (cash + positions), as of the refresh. */
export async function applyBrokerageHoldingsRefreshed(trx: Kysely<Database>, recorded: RecordedEvent<BrokerageHoldingsRefreshed>): Promise<void> {
  const revision = Number(recorded.revision);
  await trx
    .updateTable('accounts')
    .where('id', '=', recorded.data.accountId)
    .where('brokerage_authorization_uuid', 'is not', null)
    .where('holdings_revision', '<', revision)
    .set({ current: recorded.data.totalValue, currency: recorded.data.currency, updated_at: new Date(recorded.metadata.occurredAt), holdings_revision: revision })
    .execute();
}

async function insertBrokerageAccounts(
  trx: Kysely<Database>,
  recorded: RecordedEvent,
  authorization: { authorizationUuid: string; brokerageAuthorizationId: string; brokerage: BrokerageInstitution },
  accounts: readonly BrokerageAccountData[],
): Promise<void> {
  if (accounts.length === 0) return;
  const at = new Date(recorded.metadata.occurredAt);
  const { brokerage } = authorization;
  await trx
    .insertInto('accounts')
    .values(
      accounts.map((account) => ({
        id: account.accountId,
        user_id: recorded.metadata.userId,
        source: 'brokerage_link',
        name: account.name,
        type: 'investment',
        subtype: investmentSubtypeOf(account.accountType),
        mask: maskOf(account.number),
        currency: account.currency,
        institution_name: brokerage.name,
        // Until its first sync values the holdings.
        current: null,
        credit_limit: null,
        user_override_credit_limit: null,
        created_at: at,
        updated_at: at,
        deleted_at: null,
        revision: Number(recorded.revision),
        link_item_uuid: null,
        link_item_id: null,
        link_account_id: null,
        official_name: null,
        institution_id: brokerage.id,
        institution_logo: brokerage.logo,
        institution_url: null,
        available: null,
        billed_products: null,
        needs_reauth: false,
        new_accounts_available: false,
        pending_disconnect_at: null,
        account_revision: -1,
        brokerage_authorization_uuid: authorization.authorizationUuid,
        brokerage_authorization_id: authorization.brokerageAuthorizationId,
        brokerage_account_id: account.brokerageAccountId,
      })),
    )
    // An account id is name-based on (user, provider account): a later connection to the same
    // brokerage brings the same account, which moves to it — back in the list if it had left with
    // a connection the user disconnected. (Replaying the event that brought it changes nothing.)
    .onConflict((conflict) =>
      conflict
        .column('id')
        .doUpdateSet((eb) => ({
          name: eb.ref('excluded.name'),
          subtype: eb.ref('excluded.subtype'),
          mask: eb.ref('excluded.mask'),
          institution_name: eb.ref('excluded.institution_name'),
          institution_id: eb.ref('excluded.institution_id'),
          institution_logo: eb.ref('excluded.institution_logo'),
          needs_reauth: false,
          deleted_at: null,
          updated_at: eb.ref('excluded.updated_at'),
          revision: eb.ref('excluded.revision'),
          brokerage_authorization_uuid: eb.ref('excluded.brokerage_authorization_uuid'),
          brokerage_authorization_id: eb.ref('excluded.brokerage_authorization_id'),
          brokerage_account_id: eb.ref('excluded.brokerage_account_id'),
        }))
        .where((eb) => eb.or([eb('accounts.brokerage_authorization_uuid', '<>', eb.ref('excluded.brokerage_authorization_uuid')), eb('accounts.revision', '<', eb.ref('excluded.revision'))])),
    )
    .execute();
}
