import { Inject, Injectable } from '@nestjs/common';
import type { Kysely } from 'kysely';
import { accountsProjection } from '../../../projections/accounts/accounts.projection.js';
import { balanceSnapshotsProjection } from '../../../projections/balance-snapshots/balance-snapshots.projection.js';
import { transactionsProjection } from '../../../projections/transactions/transactions.projection.js';
import type { Database } from '../../infrastructure/database/schema.js';
import type { CommandContext } from '../../infrastructure/event-store/handle-command.js';
import { ConsistentCommandBus } from '../../infrastructure/runtime/consistent-command-bus.js';
import { DATABASE } from '../../infrastructure/runtime/tokens.js';
import { BrokerageDisconnectFlows } from '../brokerage/disconnect/brokerage-disconnect.flows.js';
import { LinkItemFlows } from '../link/link-items/link-item.flows.js';
import { ExecuteAccountCommand } from './account.commands.js';
import { findLiveAccount } from './account.queries.js';

export interface AccountRemovalOutcome {
  /** Whether this request removed the account (false: it was already gone, or never the user's). */
  readonly removed: boolean;
  /** For a linked account: whether it was its connection's last, so the connection went with it. */
  readonly connectionDisconnected: boolean;
}

/**
 * DELETE /accounts/{id}, one rule for every source: the account and its transactions leave every
 * list, the history stays in the streams, and nothing brings it back. A manual account is deleted on
 * its own stream; a linked account is disconnected on its connection's stream (a bank-link item or
 * a brokerage authorization, whose syncs must know to leave it alone), and the connection's last
 * account takes the connection with it (docs/decisions/0025).
 */
@Injectable()
export class AccountRemoval {
  constructor(
    private readonly commands: ConsistentCommandBus,
    @Inject(DATABASE) private readonly db: Kysely<Database>,
    private readonly linkItems: LinkItemFlows,
    private readonly brokerage: BrokerageDisconnectFlows,
  ) {}

  async remove(context: CommandContext, accountId: string): Promise<AccountRemovalOutcome> {
    const listed = await findLiveAccount(this.db, context.userId, accountId);
    if (listed?.source === 'bank_link' && listed.link_item_uuid) {
      const { disconnected, itemDisconnected } = await this.linkItems.disconnectAccount(context, listed.link_item_uuid, accountId);
      return { removed: disconnected, connectionDisconnected: itemDisconnected };
    }
    if (listed?.source === 'brokerage_link' && listed.brokerage_authorization_uuid) {
      const { disconnected, authorizationDisconnected } = await this.brokerage.disconnectAccount(context, listed.brokerage_authorization_uuid, accountId);
      return { removed: disconnected, connectionDisconnected: authorizationDisconnected };
    }
    // A manual account, or none of the user's live ones: its own stream decides (an absent or deleted one: nothing to do).
    const readModels = [accountsProjection.name, balanceSnapshotsProjection.name, transactionsProjection.name];
    const outcome = await this.commands.execute(new ExecuteAccountCommand(accountId, { type: 'DeleteAccount', accountId }, context), readModels);
    return { removed: outcome.events.length > 0, connectionDisconnected: false };
  }
}
