import type { GlobalPosition } from '../../../core/events.js';
import type { EventStore } from '../../../infrastructure/event-store/event-store.port.js';
import { type CommandContext, handleCommand } from '../../../infrastructure/event-store/handle-command.js';
import type { LinkAccount } from '../bank-link.port.js';
import { type LinkItemBalancesRefreshed, linkedAccountIdOf, linkItemStreamId, linkItemUuidOf, type RefreshedAccountBalances } from '../link-items/link-item.js';
import { linkItemDecider } from '../link-items/link-item.decider.js';

export interface LinkedBalancesRefresh {
  readonly userId: string;
  /** The provider's item id. */
  readonly linkItemId: string;
  /** `provider.getAccounts(accessToken)`: the item's accounts as the provider sees them now. */
  readonly accounts: readonly LinkAccount[];
}

/** The accounts whose balances moved (and were recorded), by the service's account id. */
export interface LinkedBalancesOutcome {
  readonly refreshed: readonly string[];
  /** Of the appended event (what a reader waits for); null when nothing moved. */
  readonly position: GlobalPosition | null;
}

/**
 * Records the provider's current balances on the item's stream (`LinkItemBalancesRefreshed`), for
 * the accounts whose balances changed since the item last recorded them; the same balances again
 * append nothing, so a retried or repeated sync is free. Accounts the item does not have (the
 * provider's new ones, until a reconnect adds them), amounts that are not decimals, and a
 * disconnected item are left alone.
 */
export async function refreshLinkedBalances(
  dependencies: { readonly eventStore: EventStore },
  { userId, linkItemId, accounts }: LinkedBalancesRefresh,
  context: CommandContext,
): Promise<LinkedBalancesOutcome> {
  const linkItemUuid = linkItemUuidOf(userId, linkItemId);
  const balances: RefreshedAccountBalances[] = accounts.map((account) => ({
    accountId: linkedAccountIdOf(userId, linkItemId, account.linkAccountId),
    linkAccountId: account.linkAccountId,
    current: account.balances.current,
    available: account.balances.available,
    limit: account.balances.limit,
  }));
  const outcome = await handleCommand(dependencies.eventStore, linkItemStreamId(linkItemUuid), linkItemDecider, { type: 'RecordProviderBalances', linkItemUuid, balances }, context, 'Link item');
  const refreshed = outcome.events.filter((event): event is LinkItemBalancesRefreshed => event.type === 'LinkItemBalancesRefreshed');
  return { refreshed: refreshed.flatMap((event) => event.data.balances.map((balance) => balance.accountId)), position: outcome.position };
}
