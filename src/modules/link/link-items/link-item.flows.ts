import { Inject, Injectable } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import type { Kysely } from 'kysely';
import { accountsProjection } from '../../../../projections/accounts/accounts.projection.js';
import { balanceSnapshotsProjection } from '../../../../projections/balance-snapshots/balance-snapshots.projection.js';
import { linkItemsProjection } from '../../../../projections/link-items/link-items.projection.js';
import { transactionsProjection } from '../../../../projections/transactions/transactions.projection.js';
import { isoDate } from '../../../core/clock.js';
import { DomainRuleError, NotFoundError } from '../../../core/errors.js';
import { isDecimalString, normaliseDecimal } from '../../../core/money.js';
import type { Database } from '../../../infrastructure/database/schema.js';
import type { CommandContext } from '../../../infrastructure/event-store/handle-command.js';
import { jobTraceOf } from '../../../infrastructure/jobs/job-trace.js';
import { ConsistentCommandBus } from '../../../infrastructure/runtime/consistent-command-bus.js';
import type { JobRunner } from '../../../infrastructure/jobs/job.js';
import { DATABASE, JOBS } from '../../../infrastructure/runtime/tokens.js';
import { BankLinkError, type BankLinkProvider, type LinkToken } from '../bank-link.port.js';
import { BANK_LINK, type BankLink } from '../bank-link.wiring.js';
import type { LinkItemResponse } from '../http/link.responses.js';
import { type LinkItemEvent, linkItemUuidOf } from './link-item.js';
import { ExecuteLinkItemCommand } from './link-item.commands.js';
import { GetLinkItem } from './link-item.queries.js';
import { toLinkedAccount } from './linked-account.mapping.js';
import { ExecuteAccountCommand } from '../../accounts/account.commands.js';
import type { AccountCommand } from '../../accounts/account.decider.js';
import { queueBankLinkSync } from '../sync/bank-link-sync.job.js';

/** What a new item's response and the linker's next reads (items, accounts) are built from. */
const LINK_READ_MODELS = [linkItemsProjection.name, accountsProjection.name];
/** Products every item of the sandbox offers and the service uses. */
const AVAILABLE_PRODUCTS = ['balance', 'transactions'];
const BILLED_PRODUCTS = ['transactions'];

/**
 * The link flow over the provider port: a link token, the public-token exchange that records
 * the item (its access token sealed in `link_item_credentials`, never in an event), and the
 * disconnect that records it and then removes the item at the provider.
 */
@Injectable()
export class LinkItemFlows {
  constructor(
    private readonly commands: ConsistentCommandBus,
    private readonly queries: QueryBus,
    @Inject(DATABASE) private readonly db: Kysely<Database>,
    @Inject(BANK_LINK) private readonly bankLink: BankLink,
    @Inject(JOBS) private readonly jobs: JobRunner,
  ) {}

  async createLinkToken(context: CommandContext, reconnectLinkItemId: string | undefined): Promise<LinkToken> {
    const provider = this.provider();
    let reconnectAccessToken: string | undefined;
    if (reconnectLinkItemId !== undefined) {
      await this.queries.execute(new GetLinkItem(context.userId, reconnectLinkItemId));
      reconnectAccessToken = await this.accessTokenOf(linkItemUuidOf(context.userId, reconnectLinkItemId));
    }
    try {
      return await provider.createLinkToken({ userId: context.userId, reconnectItemId: reconnectLinkItemId, ...(reconnectAccessToken === undefined ? {} : { reconnectAccessToken }) });
    } catch (error) {
      if (error instanceof BankLinkError && error.code === 'ITEM_NOT_FOUND') throw new NotFoundError('Link item');
      throw error;
    }
  }

  async link(context: CommandContext, publicToken: string): Promise<LinkItemResponse> {
    const provider = this.provider();
    let exchanged;
    try {
      exchanged = await provider.exchangePublicToken({ publicToken, userId: context.userId });
    } catch (error) {
      if (error instanceof BankLinkError && error.code === 'INVALID_PUBLIC_TOKEN') {
        throw new DomainRuleError('INVALID_PUBLIC_TOKEN', 'The public token is unknown, expired, not yours or was already exchanged: run the link flow again.');
      }
      throw error;
    }
    const { userId } = context;
    const linkItemUuid = linkItemUuidOf(userId, exchanged.itemId);
    const providerName = this.bankLink.providerName;
    // A provider that cannot tell whose a public token is (Plaid) may hand back another user's item.
    const owner = await this.db.selectFrom('link_item_credentials').select('user_id').where('provider', '=', providerName).where('link_item_id', '=', exchanged.itemId).executeTakeFirst();
    if (owner !== undefined && owner.user_id !== userId) {
      throw new DomainRuleError('INVALID_PUBLIC_TOKEN', 'The public token is unknown, expired, not yours or was already exchanged: run the link flow again.');
    }
    await this.db
      .insertInto('link_item_credentials')
      .values({
        link_item_uuid: linkItemUuid,
        user_id: userId,
        provider: providerName,
        link_item_id: exchanged.itemId,
        sealed_access_token: this.bankLink.sealer.seal(exchanged.accessToken, providerName, exchanged.itemId),
        created_at: context.now,
      })
      // A reconnect (the same item exchanged again) brings a new access token: the old one is dead.
      .onConflict((conflict) => conflict.column('link_item_uuid').doUpdateSet((row) => ({ sealed_access_token: row.ref('excluded.sealed_access_token'), provider: row.ref('excluded.provider') })))
      .execute();
    const data = {
      linkItemUuid,
      linkItemId: exchanged.itemId,
      provider: providerName,
      institution: { ...exchanged.institution },
      accounts: exchanged.accounts.map((account) => toLinkedAccount(userId, exchanged.itemId, account)),
      availableProducts: AVAILABLE_PRODUCTS,
      billedProducts: BILLED_PRODUCTS,
    };
    // Its first sync is asked for by the item's event (a reaction, decision 0038).
    const outcome = await this.commands.execute(new ExecuteLinkItemCommand(linkItemUuid, { type: 'LinkItem', data }, context), LINK_READ_MODELS);
    await this.snapshotJoinedAccounts(context, outcome.events);
    return this.queries.execute(new GetLinkItem(userId, exchanged.itemId));
  }

  /**
   * The accounts that joined (all of a new item's, the ones a reconnect added) get today's balance
   * snapshot at once, from the balances the provider gave with them, so their history starts on the
   * day they were linked rather than at the next nightly run; each on its own account stream, as
   * the nightly job takes them (once a day: that night's run leaves them alone).
   */
  private async snapshotJoinedAccounts(context: CommandContext, events: readonly LinkItemEvent[]): Promise<void> {
    const joined = events.flatMap((event) => (event.type === 'LinkItemLinked' ? event.data.accounts : event.type === 'LinkItemReconnected' ? event.data.addedAccounts : []));
    const date = isoDate(context.now);
    await Promise.all(
      joined
        .filter((account) => account.balances.current !== null && isDecimalString(account.balances.current))
        .map((account) => {
          const { current, available, limit } = account.balances;
          const command: AccountCommand = {
            type: 'TakeLinkedBalanceSnapshot',
            accountId: account.accountId,
            date,
            accountType: account.type,
            current: normaliseDecimal(current as string),
            available: available !== null && isDecimalString(available) ? normaliseDecimal(available) : null,
            institutionCreditLimit: limit !== null && isDecimalString(limit) ? normaliseDecimal(limit) : null,
          };
          return this.commands.execute(new ExecuteAccountCommand(account.accountId, command, { ...context, actor: 'system', causationId: context.requestId }), [balanceSnapshotsProjection.name]);
        }),
    );
  }

  /** Queues a sync of one of the user's items (404 for an item that is not theirs or is disconnected). */
  async sync(context: CommandContext, linkItemId: string): Promise<void> {
    await this.queries.execute(new GetLinkItem(context.userId, linkItemId));
    await this.queueSync(context, linkItemId);
  }

  private queueSync(context: CommandContext, linkItemId: string): Promise<void> {
    return queueBankLinkSync(this.jobs, context.userId, linkItemId, context.now, undefined, jobTraceOf(context));
  }

  /** Idempotent: a disconnected item answers that it already is; an item the user never had is a 404. */
  async disconnect(context: CommandContext, linkItemId: string): Promise<{ disconnected: boolean }> {
    const linkItemUuid = linkItemUuidOf(context.userId, linkItemId);
    const outcome = await this.commands.execute(
      new ExecuteLinkItemCommand(linkItemUuid, { type: 'DisconnectLinkItem', linkItemUuid }, context),
      [...LINK_READ_MODELS, transactionsProjection.name],
    );
    await this.removeAtProvider(linkItemUuid);
    return { disconnected: outcome.events.length > 0 };
  }

  /**
   * One of the item's accounts, on its own (DELETE /accounts/{id}); the item's last account takes
   * the item with it, which is then removed at the provider as a disconnected item is. Answers
   * once every read model that lists the account or its transactions has forgotten them.
   */
  async disconnectAccount(context: CommandContext, linkItemUuid: string, accountId: string): Promise<{ disconnected: boolean; itemDisconnected: boolean }> {
    const outcome = await this.commands.execute(
      new ExecuteLinkItemCommand(linkItemUuid, { type: 'DisconnectLinkedAccount', linkItemUuid, accountId }, context),
      [...LINK_READ_MODELS, transactionsProjection.name, balanceSnapshotsProjection.name],
    );
    if (outcome.events.length === 0) return { disconnected: false, itemDisconnected: false };
    const itemDisconnected = outcome.events.some((event) => event.type === 'LinkItemDisconnected');
    if (itemDisconnected) await this.removeAtProvider(linkItemUuid);
    return { disconnected: true, itemDisconnected };
  }

  /** The item's access token at the configured provider, if the service holds one. */
  private async accessTokenOf(linkItemUuid: string): Promise<string | undefined> {
    const credentials = await this.db.selectFrom('link_item_credentials').selectAll().where('link_item_uuid', '=', linkItemUuid).executeTakeFirst();
    if (!credentials || credentials.provider !== this.bankLink.providerName) return undefined;
    return this.bankLink.sealer.open(credentials.sealed_access_token, credentials.provider, credentials.link_item_id);
  }

  /** After the disconnect is recorded; a retried DELETE finishes a removal an earlier one did not. */
  private async removeAtProvider(linkItemUuid: string): Promise<void> {
    const provider = this.bankLink.provider;
    const credentials = await this.db.selectFrom('link_item_credentials').selectAll().where('link_item_uuid', '=', linkItemUuid).executeTakeFirst();
    if (!credentials || !provider || credentials.provider !== this.bankLink.providerName) return;
    try {
      await provider.removeItem(this.bankLink.sealer.open(credentials.sealed_access_token, credentials.provider, credentials.link_item_id));
    } catch (error) {
      if (!(error instanceof BankLinkError && error.code === 'INVALID_ACCESS_TOKEN')) throw error;
    }
    await this.db.deleteFrom('link_item_credentials').where('link_item_uuid', '=', linkItemUuid).execute();
  }

  private provider(): BankLinkProvider {
    if (!this.bankLink.provider) throw new DomainRuleError('BANK_LINK_NOT_CONFIGURED', 'No bank-link provider is configured on this service (BANK_LINK_PROVIDER=none).');
    return this.bankLink.provider;
  }
}
