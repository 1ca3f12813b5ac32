import { Inject, Injectable } from '@nestjs/common';
import type { Kysely } from 'kysely';
import { accountsProjection } from '../../../../projections/accounts/accounts.projection.js';
import type { Clock } from '../../../core/clock.js';
import { DomainRuleError, NotFoundError } from '../../../core/errors.js';
import type { Database } from '../../../infrastructure/database/schema.js';
import type { EventStore } from '../../../infrastructure/event-store/event-store.port.js';
import type { CommandContext } from '../../../infrastructure/event-store/handle-command.js';
import { ConsistentCommandBus } from '../../../infrastructure/runtime/consistent-command-bus.js';
import { CLOCK, DATABASE, EVENT_STORE } from '../../../infrastructure/runtime/tokens.js';
import { toBrokerageAccountData } from '../accounts/brokerage-account.mapping.js';
import { ExecuteBrokerageAuthorizationCommand, readBrokerageAuthorization } from '../authorizations/brokerage-authorization.commands.js';
import { BrokerageLinkError, type BrokerageLinkProvider } from '../brokerage-link.port.js';
import { BROKERAGE_LINK, type BrokerageLink } from '../brokerage-link.wiring.js';
import { brokerageAuthorizationUuidOf } from '../brokerage.events.js';
import { brokerageUserFor, registeredBrokerageUser } from '../provider/brokerage-users.js';
import type { PersistentSandboxBrokerage } from '../provider/persistent-sandbox-brokerage.js';
import { sealPortalReturn } from './portal-return.js';

/**
 * The read models that show an authorization's state: the brokerage views (projections/brokerage,
 * named `brokerage`) and the accounts list. A connect or a disable answers once both have it.
 */
export const BROKERAGE_AUTHORIZATION_READ_MODELS = ['brokerage', accountsProjection.name];

/**
 * Connecting a brokerage over the provider port: the portal for a new connection or a reconnect,
 * the portal's completion (the authorization and its accounts recorded on its stream, its first
 * sync queued), and the sandbox's control that disables an authorization.
 */
@Injectable()
export class BrokerageConnectFlows {
  constructor(
    private readonly commands: ConsistentCommandBus,
    @Inject(DATABASE) private readonly db: Kysely<Database>,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(BROKERAGE_LINK) private readonly link: BrokerageLink,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** The provider's connection portal; with `reconnectAuthorizationId`, for one of the user's authorizations (else 404). */
  async connect(context: CommandContext, reconnectAuthorizationId: string | undefined): Promise<{ redirectUrl: string }> {
    const provider = this.provider();
    if (reconnectAuthorizationId !== undefined) await this.ownAuthorization(context.userId, reconnectAuthorizationId);
    const user = await brokerageUserFor(this.db, this.link, context.userId, context.now);
    try {
      const portal = await provider.createConnectionPortal({ user, reconnectAuthorizationId });
      return { redirectUrl: portal.redirectUri };
    } catch (error) {
      if (error instanceof BrokerageLinkError && error.code === 'AUTHORIZATION_NOT_FOUND') throw new NotFoundError('Brokerage authorization');
      throw error;
    }
  }

  /**
   * The sandbox portal opened by the browser: completes the connection at the provider, records it
   * (BrokerageAuthorizationConnected, or Reconnected for a reconnect) on behalf of the user the
   * session was opened for, queues the first sync, and says where to send the browser (and what it
   * may carry there: the sealed portal return, see portal-return.ts).
   */
  async completeSandboxPortal(session: string, requestId: string): Promise<{ returnTo: string; portalReturn: string }> {
    const sandbox = this.sandbox();
    let completed;
    try {
      completed = await sandbox.completePortalSession(session);
    } catch (error) {
      if (error instanceof BrokerageLinkError && error.code === 'INVALID_PORTAL_SESSION') {
        throw new DomainRuleError('INVALID_PORTAL_SESSION', 'The portal session is unknown, expired (5 minutes) or was already used: ask POST /brokerage/connect for another.');
      }
      throw error;
    }
    const userId = completed.userId;
    const now = this.clock.now();
    const context: CommandContext = { userId, actor: 'user', requestId, now };
    const user = await registeredBrokerageUser(this.db, this.link, userId);
    if (!user) throw new Error(`The sandbox completed a portal session of user ${userId}, whom this service never registered with it`);
    const authorization = completed.authorization;
    const accounts = (await sandbox.listAccounts(user)).filter((account) => account.authorizationId === authorization.id);
    const authorizationUuid = brokerageAuthorizationUuidOf(userId, authorization.id);
    // Written before the authorization's first event, so the daily sync never misses one that has events.
    await this.db
      .insertInto('brokerage_link_authorizations')
      .values({ authorization_uuid: authorizationUuid, user_id: userId, provider: this.link.providerName, brokerage_authorization_id: authorization.id, created_at: now })
      .onConflict((conflict) => conflict.column('authorization_uuid').doNothing())
      .execute();
    const data = {
      authorizationUuid,
      brokerageAuthorizationId: authorization.id,
      provider: this.link.providerName,
      brokerage: { ...authorization.brokerage },
      accounts: accounts.map((account) => toBrokerageAccountData(userId, account)),
    };
    // Its sync is asked for by the authorization's event (a reaction, decision 0038).
    await this.commands.execute(new ExecuteBrokerageAuthorizationCommand(authorizationUuid, { type: 'RecordPortalCompletion', data }, context), BROKERAGE_AUTHORIZATION_READ_MODELS);
    const returnTo = new URL(this.link.returnUrl);
    returnTo.searchParams.set('brokerageAuthorizationId', authorization.id);
    returnTo.searchParams.set('status', 'connected');
    // For the return page: lets this browser alone see the names of the accounts it connected.
    const portalReturn = sealPortalReturn(this.link.sealer, authorization.id, userId, authorizationUuid, now);
    return { returnTo: returnTo.toString(), portalReturn };
  }

  /** The sandbox's control: the provider drops one of the user's authorizations; answers once the read models show needsReauth. */
  async disableInSandbox(context: CommandContext, brokerageAuthorizationId: string): Promise<void> {
    const sandbox = this.sandbox();
    const authorizationUuid = await this.ownAuthorization(context.userId, brokerageAuthorizationId);
    const reason = 'The brokerage ended the connection (sandbox); reconnect to resume syncing';
    try {
      await sandbox.disableAuthorization(brokerageAuthorizationId, reason);
    } catch (error) {
      if (error instanceof BrokerageLinkError && error.code === 'AUTHORIZATION_NOT_FOUND') throw new NotFoundError('Brokerage authorization');
      throw error;
    }
    await this.commands.execute(
      new ExecuteBrokerageAuthorizationCommand(authorizationUuid, { type: 'RecordAuthorizationDisabled', authorizationUuid, reason }, context),
      BROKERAGE_AUTHORIZATION_READ_MODELS,
    );
  }

  /** The service's id of one of the user's authorizations; another user's, one never recorded or one disconnected is a 404. */
  private async ownAuthorization(userId: string, brokerageAuthorizationId: string): Promise<string> {
    const authorizationUuid = brokerageAuthorizationUuidOf(userId, brokerageAuthorizationId);
    const state = await readBrokerageAuthorization(this.store, userId, authorizationUuid);
    if (state.status === 'absent' || state.status === 'disconnected') throw new NotFoundError('Brokerage authorization');
    return authorizationUuid;
  }

  private provider(): BrokerageLinkProvider {
    if (!this.link.provider) throw new DomainRuleError('BROKERAGE_LINK_NOT_CONFIGURED', 'No brokerage-link provider is configured on this service (BROKERAGE_LINK_PROVIDER=none).');
    return this.link.provider;
  }

  private sandbox(): PersistentSandboxBrokerage {
    if (!this.link.sandbox) throw new NotFoundError('Sandbox operation');
    return this.link.sandbox;
  }
}
