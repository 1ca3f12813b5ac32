import type { Transaction } from 'kysely';
import type { RecordedEvent } from '../../src/core/events.js';
import type { Database } from '../../src/infrastructure/database/schema.js';
import type { BrokerageAccountData, BrokerageAuthorizationEvent } from '../../src/modules/brokerage/brokerage.events.js';

/** An authorization stream's event: the authorization's row and the accounts it brought. */
export async function applyBrokerageAuthorizationEvent(trx: Transaction<Database>, recorded: RecordedEvent<BrokerageAuthorizationEvent>): Promise<void> {
  const event = { type: recorded.type, data: recorded.data } as BrokerageAuthorizationEvent;
  const at = new Date(recorded.metadata.occurredAt);
  const revision = Number(recorded.revision);
  const userId = recorded.metadata.userId;
  // The row keeps the stream revision it reflects: an event applied twice changes nothing.
  const row = trx.updateTable('brokerage_authorizations').where('id', '=', event.data.authorizationUuid).where('revision', '<', revision);
  switch (event.type) {
    case 'BrokerageAuthorizationConnected': {
      const { brokerage } = event.data;
      await trx
        .insertInto('brokerage_authorizations')
        .values({
          id: event.data.authorizationUuid,
          user_id: userId,
          brokerage_authorization_id: event.data.brokerageAuthorizationId,
          provider: event.data.provider,
          brokerage_id: brokerage.id,
          brokerage_name: brokerage.name,
          brokerage_logo: brokerage.logo,
          disabled_at: null,
          disabled_reason: null,
          created_at: at,
          updated_at: at,
          revision,
        })
        .onConflict((conflict) => conflict.column('id').doNothing())
        .execute();
      await upsertAccounts(trx, userId, event.data.authorizationUuid, event.data.accounts, at);
      break;
    }
    case 'BrokerageAuthorizationDisabled':
      await row.set({ disabled_at: at, disabled_reason: event.data.reason, updated_at: at, revision }).execute();
      break;
    case 'BrokerageAuthorizationReconnected': {
      const updated = await row.set({ disabled_at: null, disabled_reason: null, updated_at: at, revision }).executeTakeFirst();
      if (updated.numUpdatedRows > 0n) await upsertAccounts(trx, userId, event.data.authorizationUuid, event.data.addedAccounts, at);
      break;
    }
    case 'BrokerageAuthorizationAccountDisconnected':
      // Its activities, valuation and snapshots stay, unreachable: every view reads through the account's row.
      // A later connection that brings the account again brings it back with its history.
      await trx.deleteFrom('brokerage_accounts').where('id', '=', event.data.accountId).where('authorization_uuid', '=', event.data.authorizationUuid).execute();
      break;
    case 'BrokerageAuthorizationDisconnected':
      await trx.deleteFrom('brokerage_accounts').where('authorization_uuid', '=', event.data.authorizationUuid).execute();
      await trx.deleteFrom('brokerage_authorizations').where('id', '=', event.data.authorizationUuid).execute();
      break;
    default: {
      const unknown: never = event;
      throw new Error(`Not a brokerage authorization event: ${(unknown as { type: string }).type}`);
    }
  }
}

/**
 * An account id is name-based on (user, provider account), so a later connection to the same
 * brokerage brings the same ids: the account moves to the newest authorization that brought it.
 */
async function upsertAccounts(trx: Transaction<Database>, userId: string, authorizationUuid: string, accounts: readonly BrokerageAccountData[], at: Date): Promise<void> {
  if (accounts.length === 0) return;
  await trx
    .insertInto('brokerage_accounts')
    .values(
      accounts.map((account) => ({
        id: account.accountId,
        user_id: userId,
        authorization_uuid: authorizationUuid,
        brokerage_account_id: account.brokerageAccountId,
        name: account.name,
        number: account.number,
        institution_name: account.institutionName,
        account_type: account.accountType,
        account_status: account.accountStatus,
        currency: account.currency,
        created_at: at,
        updated_at: at,
      })),
    )
    .onConflict((conflict) =>
      conflict.column('id').doUpdateSet((eb) => ({
        authorization_uuid: eb.ref('excluded.authorization_uuid'),
        name: eb.ref('excluded.name'),
        number: eb.ref('excluded.number'),
        institution_name: eb.ref('excluded.institution_name'),
        account_type: eb.ref('excluded.account_type'),
        account_status: eb.ref('excluded.account_status'),
        currency: eb.ref('excluded.currency'),
        updated_at: eb.ref('excluded.updated_at'),
      })),
    )
    .execute();
}
