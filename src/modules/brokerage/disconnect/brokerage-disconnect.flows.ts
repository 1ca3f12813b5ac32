import { Inject, Injectable } from '@nestjs/common';
import type { Kysely } from 'kysely';
import type { Database } from '../../../infrastructure/database/schema.js';
import type { CommandContext } from '../../../infrastructure/event-store/handle-command.js';
import { ConsistentCommandBus } from '../../../infrastructure/runtime/consistent-command-bus.js';
import { DATABASE } from '../../../infrastructure/runtime/tokens.js';
import { ExecuteBrokerageAuthorizationCommand } from '../authorizations/brokerage-authorization.commands.js';
import type { BrokerageAuthorizationCommand } from '../authorizations/brokerage-authorization.decider.js';
import { BrokerageLinkError } from '../brokerage-link.port.js';
import { BROKERAGE_LINK, type BrokerageLink } from '../brokerage-link.wiring.js';
import { brokerageAuthorizationUuidOf } from '../brokerage.events.js';
import { BROKERAGE_AUTHORIZATION_READ_MODELS } from '../connect/brokerage-connect.flows.js';
import { registeredBrokerageUser } from '../provider/brokerage-users.js';

export interface BrokerageDisconnectOutcome {
  /** Whether this request disconnected something (false: it already was). */
  readonly disconnected: boolean;
  /** Whether the authorization itself is now disconnected by this request. */
  readonly authorizationDisconnected: boolean;
}

/**
 * The user ends a brokerage connection, or one account of it, as with a bank-link item: recorded on
 * the authorization's stream first (its accounts leave every list; their history stays in their
 * streams), then the connection is removed at the provider and from the scheduled syncs. A retried
 * DELETE of the authorization finishes a removal an earlier one did not.
 */
@Injectable()
export class BrokerageDisconnectFlows {
  constructor(
    private readonly commands: ConsistentCommandBus,
    @Inject(DATABASE) private readonly db: Kysely<Database>,
    @Inject(BROKERAGE_LINK) private readonly link: BrokerageLink,
  ) {}

  /** DELETE /brokerage/authorizations/{id}: idempotent; an authorization the user never had is a 404. */
  async disconnectAuthorization(context: CommandContext, brokerageAuthorizationId: string): Promise<BrokerageDisconnectOutcome> {
    const authorizationUuid = brokerageAuthorizationUuidOf(context.userId, brokerageAuthorizationId);
    const outcome = await this.record(context, authorizationUuid, { type: 'DisconnectBrokerageAuthorization', authorizationUuid });
    await this.removeAtProvider(context.userId, authorizationUuid);
    return outcome;
  }

  /** One account of an authorization (DELETE /accounts/{id}); its last account takes the authorization with it. */
  async disconnectAccount(context: CommandContext, authorizationUuid: string, accountId: string): Promise<BrokerageDisconnectOutcome> {
    const outcome = await this.record(context, authorizationUuid, { type: 'DisconnectBrokerageAccount', authorizationUuid, accountId });
    if (outcome.authorizationDisconnected) await this.removeAtProvider(context.userId, authorizationUuid);
    return outcome;
  }

  private async record(context: CommandContext, authorizationUuid: string, command: BrokerageAuthorizationCommand): Promise<BrokerageDisconnectOutcome> {
    const { events } = await this.commands.execute(new ExecuteBrokerageAuthorizationCommand(authorizationUuid, command, context), BROKERAGE_AUTHORIZATION_READ_MODELS);
    return { disconnected: events.length > 0, authorizationDisconnected: events.some((event) => event.type === 'BrokerageAuthorizationDisconnected') };
  }

  /** Once recorded: the provider forgets the connection, and the schedule stops asking for its syncs. */
  private async removeAtProvider(userId: string, authorizationUuid: string): Promise<void> {
    const row = await this.db.selectFrom('brokerage_link_authorizations').selectAll().where('authorization_uuid', '=', authorizationUuid).where('user_id', '=', userId).executeTakeFirst();
    if (!row) return;
    const provider = this.link.provider;
    const user = provider && row.provider === this.link.providerName ? await registeredBrokerageUser(this.db, this.link, userId) : null;
    if (provider && user) {
      try {
        await provider.removeAuthorization(user, row.brokerage_authorization_id);
      } catch (error) {
        // Already gone at the provider: nothing left to remove there.
        if (!(error instanceof BrokerageLinkError && error.code === 'AUTHORIZATION_NOT_FOUND')) throw error;
      }
    }
    await this.db.deleteFrom('brokerage_link_authorizations').where('authorization_uuid', '=', authorizationUuid).execute();
  }
}
