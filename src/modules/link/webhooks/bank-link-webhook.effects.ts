import type { BankLinkWebhook } from '../bank-link.port.js';
import type { LinkItemCommand } from '../link-items/link-item.decider.js';

/** What a provider webhook does to the service: a command on the item's stream, or a sync queued. */
export type BankLinkWebhookEffect = { readonly type: 'QueueSync' } | { readonly type: 'ExecuteCommand'; readonly command: LinkItemCommand };

/**
 * Codes → state, as docs/api-decisions fixes them: login required and errors set needsReauth,
 * a repair clears it, a pending disconnect and an expiring consent set pendingDisconnectAt (to the
 * disconnect time, or to the consent's expiration time), new accounts set newAccountsAvailable.
 * Every command is recorded only when it changes the item, so applying one twice is harmless.
 */
export function effectOfWebhook(webhook: BankLinkWebhook, linkItemUuid: string): BankLinkWebhookEffect {
  const command = (value: LinkItemCommand): BankLinkWebhookEffect => ({ type: 'ExecuteCommand', command: value });
  switch (webhook.code) {
    case 'SYNC_UPDATES_AVAILABLE':
      return { type: 'QueueSync' };
    case 'ITEM_LOGIN_REQUIRED':
      return command({ type: 'RecordLoginRequired', linkItemUuid, error: { ...webhook.error } });
    case 'ERROR':
      return command({ type: 'RecordItemError', linkItemUuid, error: { ...webhook.error } });
    case 'LOGIN_REPAIRED':
      return command({ type: 'RecordLoginRepaired', linkItemUuid });
    case 'PENDING_DISCONNECT':
      return command({ type: 'RecordPendingDisconnect', linkItemUuid, disconnectAt: webhook.disconnectAt });
    case 'PENDING_EXPIRATION':
      return command({ type: 'RecordPendingDisconnect', linkItemUuid, disconnectAt: webhook.consentExpiresAt });
    case 'NEW_ACCOUNTS_AVAILABLE':
      return command({ type: 'RecordNewAccountsAvailable', linkItemUuid });
    default: {
      const unreachable: never = webhook;
      throw new Error(`Unknown webhook code ${(unreachable as { code: string }).code}`);
    }
  }
}
