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
import { type BrokerageAccount, type BrokerageAuthorization, BrokerageLinkError, type BrokerageLinkProvider } from '../brokerage-link.port.js';
import { BROKERAGE_LINK, type BrokerageLink } from '../brokerage-link.wiring.js';
import { brokerageAuthorizationUuidOf } from '../brokerage.events.js';
import { brokerageUserFor, registeredBrokerageUser } from '../provider/brokerage-users.js';
import type { PersistentSandboxBrokerage } from '../provider/persistent-sandbox-brokerage.js';
import { sealPortalReturn } from './portal-return.js';
import { openPortalReturnSession, spendPortalReturnSession } from './portal-return-sessions.js';

/**
 * The read models that show an authorization's state: the brokerage views (projections/brokerage,
 * named `brokerage`) and the accounts list. A connect or a disable answers once both have it.
 */
export const BROKERAGE_AUTHORIZATION_READ_MODELS = ['brokerage', accountsProjection.name];

/** Where the browser goes once a connection is recorded, and what it may carry there (see portal-return.ts). */
export interface PortalReturn {
  readonly returnTo: string;
  /** The sealed portal-return cookie's value; null when nothing was connected. */
  readonly portalReturn: string | null;
}

/**
 * Connecting a brokerage over the provider port: the portal for a new connection or a reconnect,
 * the portal's completion (the authorization and its accounts recorded on its stream, its first
 * sync queued) — the sandbox's portal, a page of the service, completes itself; a real provider's
 * sends the browser back to GET /v1/brokerage/portal/return, and the service asks the provider
 * what the user connected — and the sandbox's control that disables an authorization.
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
    // A real provider's portal is its own page: it sends the browser back with a token naming this portal.
    const returnUrl = this.link.sandbox ? undefined : await openPortalReturnSession(this.db, this.link, context.userId, reconnectAuthorizationId, context.now);
    try {
      const portal = await provider.createConnectionPortal({ user, reconnectAuthorizationId, ...(returnUrl === undefined ? {} : { returnUrl }) });
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
  async completeSandboxPortal(session: string, requestId: string): Promise<PortalReturn> {
    const sandbox = this.sandbox();
    let completed;
    try {
      completed = await sandbox.completePortalSession(session);
    } catch (error) {
      if (error instanceof BrokerageLinkError && error.code === 'INVALID_PORTAL_SESSION') throw invalidPortalSession();
      throw error;
    }
    const { userId, authorization } = completed;
    const now = this.clock.now();
    const user = await registeredBrokerageUser(this.db, this.link, userId);
    if (!user) throw new Error(`The sandbox completed a portal session of user ${userId}, whom this service never registered with it`);
    const accounts = (await sandbox.listAccounts(user)).filter((account) => account.authorizationId === authorization.id);
    const authorizationUuid = await this.recordConnection(userId, authorization, accounts, requestId, now);
    return this.connectedReturn(authorization.id, userId, authorizationUuid, now);
  }

  /**
   * A real provider's portal sent the browser back with the token `connect` put in its return URL:
   * the token is spent, and the provider asked for the user's connections. Each active one the
   * service has not recorded (or the one being reconnected) is recorded as the sandbox's are; one
   * the user disconnected here but the provider still has is left alone. The browser goes on to
   * BROKERAGE_RETURN_URL, connected (the last one recorded) or not (the user gave up, or the
   * reconnect did not take).
   */
  async completeProviderPortal(session: string, requestId: string): Promise<PortalReturn> {
    const now = this.clock.now();
    const spent = this.link.sandbox ? null : await spendPortalReturnSession(this.db, this.link, session, now);
    if (spent === null) throw invalidPortalSession();
    const provider = this.provider();
    const user = await registeredBrokerageUser(this.db, this.link, spent.userId);
    if (!user) throw new Error(`A portal return of user ${spent.userId}, whom this service never registered with ${this.link.providerName}`);
    const [authorizations, accounts, recorded] = await Promise.all([
      provider.listAuthorizations(user),
      provider.listAccounts(user),
      this.db.selectFrom('brokerage_link_authorizations').select('brokerage_authorization_id').where('user_id', '=', spent.userId).where('provider', '=', this.link.providerName).execute(),
    ]);
    const known = new Set(recorded.map((row) => row.brokerage_authorization_id));
    let last: { id: string; uuid: string } | null = null;
    for (const authorization of authorizations) {
      const reconnected = authorization.id === spent.reconnectAuthorizationId;
      if (authorization.status !== 'active' || (!reconnected && known.has(authorization.id))) continue;
      try {
        last = { id: authorization.id, uuid: await this.recordConnection(spent.userId, authorization, accounts.filter((account) => account.authorizationId === authorization.id), requestId, now) };
      } catch (error) {
        if (reconnected || !(error instanceof DomainRuleError && error.code === 'BROKERAGE_AUTHORIZATION_DISCONNECTED')) throw error;
      }
    }
    if (last === null) {
      const returnTo = new URL(this.link.returnUrl);
      returnTo.searchParams.set('status', 'not_connected');
      return { returnTo: returnTo.toString(), portalReturn: null };
    }
    return this.connectedReturn(last.id, spent.userId, last.uuid, now);
  }

  /**
   * Records a connection the portal completed (BrokerageAuthorizationConnected, or Reconnected for
   * one the user has) on behalf of the user it was opened for; its first sync is asked for by the
   * event (a reaction, decision 0038). The schedule's row is written before the first event, so the
   * daily sync never misses an authorization that has events.
   */
  private async recordConnection(userId: string, authorization: BrokerageAuthorization, accounts: readonly BrokerageAccount[], requestId: string, now: Date): Promise<string> {
    const context: CommandContext = { userId, actor: 'user', requestId, now };
    const authorizationUuid = brokerageAuthorizationUuidOf(userId, authorization.id);
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
    await this.commands.execute(new ExecuteBrokerageAuthorizationCommand(authorizationUuid, { type: 'RecordPortalCompletion', data }, context), BROKERAGE_AUTHORIZATION_READ_MODELS);
    return authorizationUuid;
  }

  /** BROKERAGE_RETURN_URL with the authorization and `status=connected`, and the sealed cookie that lets this browser's return page name its accounts. */
  private connectedReturn(brokerageAuthorizationId: string, userId: string, authorizationUuid: string, now: Date): PortalReturn {
    const returnTo = new URL(this.link.returnUrl);
    returnTo.searchParams.set('brokerageAuthorizationId', brokerageAuthorizationId);
    returnTo.searchParams.set('status', 'connected');
    return { returnTo: returnTo.toString(), portalReturn: sealPortalReturn(this.link.sealer, brokerageAuthorizationId, userId, authorizationUuid, now) };
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

const invalidPortalSession = () => new DomainRuleError('INVALID_PORTAL_SESSION', 'The portal session is unknown, expired or was already used: ask POST /brokerage/connect for another.');
