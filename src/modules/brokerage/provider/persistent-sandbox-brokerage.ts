import { createHash, randomBytes, randomInt, randomUUID } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import { type Clock, isoDate } from '../../../core/clock.js';
import type { Database } from '../../../infrastructure/database/schema.js';
import { parseIsoDate, type SandboxMarket } from '../../quotes/sandbox-market/index.js';
import {
  type Brokerage,
  type BrokerageAccount,
  type BrokerageAuthorization,
  BrokerageLinkError,
  type BrokerageLinkProvider,
  type BrokerageUser,
  type DateRange,
} from '../brokerage-link.port.js';
import { balanceAt, portfolioValues, positionsAt } from '../sandbox-brokerage/portfolio-valuation.js';
import { SANDBOX_ACCOUNT_KINDS, type SandboxAccountHistory, sandboxAccount, sandboxAccountHistory } from '../sandbox-brokerage/sandbox-accounts.js';
import { SANDBOX_BROKERAGES } from '../sandbox-brokerage/index.js';

/** What completing a portal session did at the provider. */
export interface CompletedPortal {
  /** The provider's user the session was opened for (the service registers its users under their own id). */
  readonly userId: string;
  readonly authorization: BrokerageAuthorization;
  /** True when the session repaired an authorization the user had (`reconnectAuthorizationId`). */
  readonly reconnected: boolean;
}

/** The port plus the sandbox's controls, over state every instance shares. */
export interface PersistentSandboxBrokerage extends BrokerageLinkProvider {
  readonly brokerages: readonly Brokerage[];
  /**
   * The user finishing the connection portal: spends the session (single use, five minutes) and
   * opens a new authorization, or repairs the one the session reconnects. An unknown, expired or
   * used session, or one whose authorization was removed since: INVALID_PORTAL_SESSION.
   */
  completePortalSession(sessionToken: string): Promise<CompletedPortal>;
  /** Simulates a connection the brokerage dropped: the data calls fail until the user reconnects. */
  disableAuthorization(authorizationId: string, reason?: string): Promise<void>;
}

export interface PersistentSandboxBrokerageOptions {
  /** Also the sandbox's today: histories, balances and positions run up to the clock's UTC day. */
  readonly clock: Clock;
  /** The market prices come from, so valuations agree with the quotes. */
  readonly market: SandboxMarket;
  /** The portal page the sessions open: `<portalUrl>?session=<token>`. */
  readonly portalUrl: string;
  readonly portalSessionTtlMs?: number;
}

export const PORTAL_SESSION_TTL_MS = 5 * 60_000;
export const DEFAULT_DISABLED_REASON = 'The brokerage ended the connection; reconnect to resume syncing';
/** Account histories kept, by account and day: a sync asks for one account several times in a row. */
const CACHED_HISTORIES = 64;

type AuthorizationRow = Selectable<Database['sandbox_brokerage_authorizations']>;

const hashOf = (secret: string): Buffer => createHash('sha256').update(secret).digest();

/**
 * The sandbox brokerage made durable. What changes over time — users and their secrets, portal
 * sessions, authorizations and their status — is in PostgreSQL; everything else is derived from
 * each authorization's stored seed, its id and brokerage, the day it was opened, the sandbox
 * market and the clock. Histories are anchored on the day the authorization was opened, so what a
 * day showed yesterday it still shows today, and each new day only adds to them. Secrets and
 * session tokens are random and stored only as SHA-256 hashes: the sandbox only compares them.
 */
export function createPersistentSandboxBrokerage(db: Kysely<Database>, options: PersistentSandboxBrokerageOptions): PersistentSandboxBrokerage {
  const { clock, market } = options;
  const sessionTtlMs = options.portalSessionTtlMs ?? PORTAL_SESSION_TTL_MS;
  const histories = new Map<string, SandboxAccountHistory>();

  const today = (): string => isoDate(clock.now());
  const brokerageOf = (row: AuthorizationRow): Brokerage => SANDBOX_BROKERAGES.find((brokerage) => brokerage.id === row.brokerage_id) ?? SANDBOX_BROKERAGES[0]!;
  const toAuthorization = (row: AuthorizationRow): BrokerageAuthorization => ({
    id: row.authorization_id,
    brokerage: brokerageOf(row),
    status: row.status,
    needsReconnect: row.status === 'disabled',
    disabledReason: row.disabled_reason,
    createdAt: row.created_at.toISOString(),
  });
  const accountsOf = (row: AuthorizationRow): BrokerageAccount[] => SANDBOX_ACCOUNT_KINDS.map((kind) => sandboxAccount(Number(row.seed), toAuthorization(row), kind));

  async function authenticate(user: BrokerageUser): Promise<void> {
    const known = await db.selectFrom('sandbox_brokerage_users').select('user_id').where('user_id', '=', user.userId).where('secret_hash', '=', hashOf(user.userSecret)).executeTakeFirst();
    if (!known) throw new BrokerageLinkError('INVALID_USER', 'Unknown user or wrong user secret');
  }

  const liveAuthorizations = (userId: string) =>
    db.selectFrom('sandbox_brokerage_authorizations').selectAll().where('user_id', '=', userId).where('removed_at', 'is', null).orderBy('created_at').orderBy('authorization_id').execute();

  async function ownAuthorization(user: BrokerageUser, authorizationId: string): Promise<AuthorizationRow> {
    await authenticate(user);
    const row = await db
      .selectFrom('sandbox_brokerage_authorizations')
      .selectAll()
      .where('authorization_id', '=', authorizationId)
      .where('user_id', '=', user.userId)
      .where('removed_at', 'is', null)
      .executeTakeFirst();
    if (!row) throw new BrokerageLinkError('AUTHORIZATION_NOT_FOUND', `No authorization ${authorizationId}`);
    return row;
  }

  /** The account's history up to today, if it is one of the user's and its authorization is active. */
  async function usableAccount(user: BrokerageUser, accountId: string): Promise<SandboxAccountHistory> {
    await authenticate(user);
    // Account ids are derived, not stored: the user's few authorizations each name theirs.
    for (const row of await liveAuthorizations(user.userId)) {
      const kind = SANDBOX_ACCOUNT_KINDS.find((candidate) => sandboxAccount(Number(row.seed), toAuthorization(row), candidate).id === accountId);
      if (kind === undefined) continue;
      if (row.status === 'disabled') throw new BrokerageLinkError('AUTHORIZATION_DISABLED', 'The connection is disabled; the user must reconnect');
      return historyOf(row, kind);
    }
    throw new BrokerageLinkError('ACCOUNT_NOT_FOUND', `No account ${accountId}`);
  }

  function historyOf(row: AuthorizationRow, kind: (typeof SANDBOX_ACCOUNT_KINDS)[number]): SandboxAccountHistory {
    const asOf = today();
    const key = `${row.authorization_id}\n${kind}\n${asOf}`;
    let history = histories.get(key);
    if (history === undefined) {
      history = sandboxAccountHistory({ seed: Number(row.seed), authorization: toAuthorization(row), kind, openedOn: row.opened_on, asOf, market });
      if (histories.size >= CACHED_HISTORIES) histories.delete(histories.keys().next().value as string);
      histories.set(key, history);
    }
    return history;
  }

  const inRange = (date: string, range: DateRange = {}): boolean =>
    (range.startDate === undefined || date >= range.startDate) && (range.endDate === undefined || date <= range.endDate);

  return {
    brokerages: SANDBOX_BROKERAGES,

    /** Registering a user again issues a new secret (the old one stops working), as a provider's secret reset does. */
    async registerUser(userId) {
      const userSecret = `usersecret-${randomBytes(24).toString('base64url')}`;
      await db
        .insertInto('sandbox_brokerage_users')
        .values({ user_id: userId, secret_hash: hashOf(userSecret), created_at: clock.now() })
        .onConflict((conflict) => conflict.column('user_id').doUpdateSet((row) => ({ secret_hash: row.ref('excluded.secret_hash') })))
        .execute();
      return { userId, userSecret };
    },

    async createConnectionPortal({ user, reconnectAuthorizationId }) {
      if (reconnectAuthorizationId === undefined) await authenticate(user);
      else await ownAuthorization(user, reconnectAuthorizationId);
      const session = randomBytes(24).toString('base64url');
      const now = clock.now();
      const expiresAt = new Date(now.getTime() + sessionTtlMs);
      await db
        .insertInto('sandbox_brokerage_portal_sessions')
        .values({ token_hash: hashOf(session), user_id: user.userId, reconnect_authorization_id: reconnectAuthorizationId ?? null, created_at: now, expires_at: expiresAt, used_at: null, authorization_id: null })
        .execute();
      return { redirectUri: `${options.portalUrl}?session=${session}`, expiresAt: expiresAt.toISOString() };
    },

    async completePortalSession(sessionToken) {
      const now = clock.now();
      return db.transaction().execute(async (trx) => {
        // One UPDATE both checks and spends the session: two completions of it cannot both win.
        const session = await trx
          .updateTable('sandbox_brokerage_portal_sessions')
          .set({ used_at: now })
          .where('token_hash', '=', hashOf(sessionToken))
          .where('used_at', 'is', null)
          .where('expires_at', '>', now)
          .returningAll()
          .executeTakeFirst();
        if (!session) throw new BrokerageLinkError('INVALID_PORTAL_SESSION', 'The portal session is unknown, expired or was already used');
        let row: AuthorizationRow | undefined;
        if (session.reconnect_authorization_id !== null) {
          row = await trx
            .updateTable('sandbox_brokerage_authorizations')
            .set({ status: 'active', disabled_reason: null })
            .where('authorization_id', '=', session.reconnect_authorization_id)
            .where('user_id', '=', session.user_id)
            .where('removed_at', 'is', null)
            .returningAll()
            .executeTakeFirst();
          if (!row) throw new BrokerageLinkError('INVALID_PORTAL_SESSION', 'The authorization the portal session reconnects has been removed');
        } else {
          const seed = randomInt(1, 2 ** 31 - 1);
          row = await trx
            .insertInto('sandbox_brokerage_authorizations')
            .values({
              authorization_id: randomUUID(),
              user_id: session.user_id,
              brokerage_id: SANDBOX_BROKERAGES[seed % SANDBOX_BROKERAGES.length]!.id,
              seed: String(seed),
              opened_on: isoDate(now),
              status: 'active',
              disabled_reason: null,
              created_at: now,
              removed_at: null,
            })
            .returningAll()
            .executeTakeFirstOrThrow();
        }
        await trx.updateTable('sandbox_brokerage_portal_sessions').set({ authorization_id: row.authorization_id }).where('token_hash', '=', session.token_hash).execute();
        return { userId: session.user_id, authorization: toAuthorization(row), reconnected: session.reconnect_authorization_id !== null };
      });
    },

    async disableAuthorization(authorizationId, reason = DEFAULT_DISABLED_REASON) {
      const row = await db
        .updateTable('sandbox_brokerage_authorizations')
        .set({ status: 'disabled', disabled_reason: reason })
        .where('authorization_id', '=', authorizationId)
        .where('removed_at', 'is', null)
        .returning('authorization_id')
        .executeTakeFirst();
      if (!row) throw new BrokerageLinkError('AUTHORIZATION_NOT_FOUND', `No authorization ${authorizationId}`);
    },

    async listAuthorizations(user) {
      await authenticate(user);
      return (await liveAuthorizations(user.userId)).map(toAuthorization);
    },

    async removeAuthorization(user, authorizationId) {
      await ownAuthorization(user, authorizationId);
      await db.updateTable('sandbox_brokerage_authorizations').set({ removed_at: clock.now() }).where('authorization_id', '=', authorizationId).execute();
    },

    async listAccounts(user) {
      await authenticate(user);
      return (await liveAuthorizations(user.userId)).flatMap(accountsOf);
    },

    getBalance: async (user, accountId) => balanceAt((await usableAccount(user, accountId)).planned, parseIsoDate(today()), accountId),
    getPositions: async (user, accountId) => positionsAt((await usableAccount(user, accountId)).planned, parseIsoDate(today()), market, accountId),
    getActivities: async (user, accountId, range) => (await usableAccount(user, accountId)).activities.filter((activity) => inRange(activity.tradeDate, range)),
    async getPortfolioValues(user, accountId, range = {}) {
      const { planned } = await usableAccount(user, accountId);
      const lastDay = Math.min(parseIsoDate(today()), range.endDate === undefined ? Number.POSITIVE_INFINITY : parseIsoDate(range.endDate));
      // Only the days asked for are priced.
      return portfolioValues(planned, market, lastDay, range.startDate === undefined ? undefined : parseIsoDate(range.startDate));
    },
  };
}
