import type { AppConfig } from './config/config.js';
import type { Clock } from './core/clock.js';
import type { ProjectionDefinition } from './infrastructure/projections/projection.js';
import { brokerageFirstSyncReaction } from './modules/brokerage/sync/first-sync.reaction.js';
import { recurringRefreshReaction } from './modules/insights/recurring/refresh/recurring-refresh.reaction.js';
import { bankLinkFirstSyncReaction } from './modules/link/sync/first-sync.reaction.js';
import { rulesOnNewTransactionsReaction } from './modules/rules/rules-on-new-transactions.reaction.js';
import { tagDeletionReaction } from './modules/tags/tag-deletion.reaction.js';
import { transferPairingReaction } from './modules/transactions/transfers/transfer-pairing.reaction.js';
import { webhookDeliveriesReaction } from './modules/webhooks/webhook-deliveries.reaction.js';

/** Every reaction the service runs on the feed (decision 0038); the README's reaction list mirrors this one. */
export function serviceReactions(clock: Clock, config: Pick<AppConfig, 'recurringRefreshDebounceMs'>): ProjectionDefinition[] {
  return [recurringRefreshReaction(clock, config.recurringRefreshDebounceMs), tagDeletionReaction, bankLinkFirstSyncReaction, brokerageFirstSyncReaction, webhookDeliveriesReaction, rulesOnNewTransactionsReaction, transferPairingReaction];
}
