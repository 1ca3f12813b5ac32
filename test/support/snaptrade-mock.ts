import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { type ApiAnswer, type ApiRequest, fixture, startRecordedApiServer } from './recorded-api-server.js';

/**
 * SnapTrade's API on 127.0.0.1, answering with the exchanges recorded under test/fixtures/snaptrade,
 * with the state SnapTrade keeps: users and their secrets, portal links, connections (each with the
 * recorded accounts under fresh ids), disabled ones still answering their cached data as SnapTrade
 * does. Every request's signature is checked as SnapTrade checks it: HMAC-SHA256 under the consumer
 * key over the canonical JSON of {content, path, query}, the client id and a timestamp within
 * five minutes in the query.
 */
export interface SnapTradeMock {
  readonly url: string;
  readonly clientId: string;
  readonly consumerKey: string;
  readonly requests: ApiRequest[];
  /** The user finishes the portal opened at `redirectUri`: a new connection, or the one it reconnects working again. Where the browser goes next too. */
  completePortal(redirectUri: string): { authorizationId: string; returnTo: string | null };
  /** The brokerage ends the connection (`/authorizations/{id}/disable`). */
  disable(authorizationId: string): void;
  /** The next request whose path starts with `pathPrefix` is answered with this recorded error. */
  failNext(pathPrefix: string, errorFixture: string): void;
  close(): Promise<void>;
}

interface Connection {
  readonly id: string;
  readonly userId: string;
  readonly createdDate: string;
  /** Account id → its place in the recorded accounts. */
  readonly accounts: ReadonlyMap<string, number>;
  disabled: boolean;
  removed: boolean;
}

const recorded = (name: string) => fixture<{ status: number; body: unknown }>(`snaptrade/errors/${name}.json`);
const refusal = (name: string): ApiAnswer => recorded(name);

/** SnapTrade's canonical JSON: keys sorted at every level, no spaces. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

export async function startSnapTradeMock(options: { now?: () => Date } = {}): Promise<SnapTradeMock> {
  const now = options.now ?? (() => new Date());
  const clientId = `LEDGERLINE-${randomBytes(3).toString('hex').toUpperCase()}`;
  const consumerKey = randomBytes(24).toString('base64url');
  const users = new Map<string, string>();
  const connections = new Map<string, Connection>();
  const portals = new Map<string, { userId: string; reconnect: string | null; customRedirect: string | null }>();
  const failures = new Map<string, string>();
  const recordedAccounts = fixture<{ accounts: Record<string, unknown>[] }>('snaptrade/accounts.json').accounts;

  const signedCorrectly = (request: ApiRequest): boolean => {
    const timestamp = Number(request.query.get('timestamp'));
    if (request.query.get('clientId') !== clientId || !Number.isInteger(timestamp) || Math.abs(now().getTime() / 1000 - timestamp) > 300) return false;
    const content = request.rawBody === '' || request.rawBody === '{}' ? null : request.body;
    const expected = createHmac('sha256', encodeURI(consumerKey)).update(canonical({ content, path: request.path, query: request.rawQuery })).digest();
    const given = Buffer.from(String(request.headers.signature ?? ''), 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  };

  const userOf = (request: ApiRequest): string | null => {
    const userId = request.query.get('userId');
    return userId !== null && users.get(userId) === request.query.get('userSecret') ? userId : null;
  };
  const connectionOf = (userId: string, id: string): Connection | null => {
    const connection = connections.get(id);
    return connection && connection.userId === userId && !connection.removed ? connection : null;
  };
  const accountOf = (userId: string, accountId: string): { connection: Connection; index: number } | null => {
    for (const connection of connections.values()) {
      const index = connection.accounts.get(accountId);
      if (index !== undefined && connection.userId === userId && !connection.removed) return { connection, index };
    }
    return null;
  };
  const accountJson = (connection: Connection, accountId: string, index: number) => ({ ...recordedAccounts[index], id: accountId, brokerage_authorization: connection.id });
  const connectionJson = (connection: Connection) => ({
    ...fixture('snaptrade/authorization.json'),
    id: connection.id,
    created_date: connection.createdDate,
    disabled: connection.disabled,
    disabled_date: connection.disabled ? now().toISOString() : null,
  });

  const userRoutes: [RegExp, string, (userId: string, request: ApiRequest, match: RegExpExecArray) => ApiAnswer][] = [
    [/^\/snapTrade\/login$/, 'POST', (userId, request) => {
      const body = (request.body ?? {}) as { reconnect?: string; customRedirect?: string };
      if (body.reconnect !== undefined && connectionOf(userId, body.reconnect) === null) return refusal('not-found');
      const sessionId = randomUUID();
      const token = randomBytes(18).toString('base64url');
      portals.set(token, { userId, reconnect: body.reconnect ?? null, customRedirect: body.customRedirect ?? null });
      const login = fixture<{ redirectURI: string }>('snaptrade/login.json');
      const redirect = new URL(login.redirectURI);
      redirect.searchParams.set('token', token);
      redirect.searchParams.set('clientId', clientId);
      redirect.searchParams.set('sessionId', sessionId);
      return { status: 200, body: { redirectURI: redirect.toString(), sessionId } };
    }],
    [/^\/authorizations$/, 'GET', (userId) => ({ status: 200, body: [...connections.values()].filter((connection) => connection.userId === userId && !connection.removed).map(connectionJson) })],
    [/^\/authorizations\/([^/]+)$/, 'GET', (userId, _request, match) => {
      const connection = connectionOf(userId, match[1]!);
      return connection === null ? refusal('not-found') : { status: 200, body: connectionJson(connection) };
    }],
    [/^\/authorizations\/([^/]+)$/, 'DELETE', (userId, _request, match) => {
      const connection = connectionOf(userId, match[1]!);
      if (connection === null) return refusal('not-found');
      connection.removed = true;
      return { status: 204 };
    }],
    [/^\/accounts$/, 'GET', (userId) => ({
      status: 200,
      body: [...connections.values()].filter((connection) => connection.userId === userId && !connection.removed).flatMap((connection) => [...connection.accounts].map(([id, index]) => accountJson(connection, id, index))),
    })],
    [/^\/accounts\/([^/]+)$/, 'GET', (userId, _request, match) => {
      const found = accountOf(userId, match[1]!);
      return found === null ? refusal('not-found') : { status: 200, body: accountJson(found.connection, match[1]!, found.index) };
    }],
    [/^\/accounts\/([^/]+)\/balances$/, 'GET', (userId, _request, match) => {
      const found = accountOf(userId, match[1]!);
      return found === null ? refusal('not-found') : { status: 200, body: fixture<{ byAccount: unknown[] }>('snaptrade/balances.json').byAccount[found.index] };
    }],
    [/^\/accounts\/([^/]+)\/positions\/all$/, 'GET', (userId, _request, match) => {
      const found = accountOf(userId, match[1]!);
      return found === null ? refusal('not-found') : { status: 200, body: fixture<{ byAccount: unknown[] }>('snaptrade/positions-all.json').byAccount[found.index] };
    }],
    [/^\/accounts\/([^/]+)\/activities$/, 'GET', (userId, request, match) => {
      const found = accountOf(userId, match[1]!);
      if (found === null) return refusal('not-found');
      const { startDate, endDate } = { startDate: request.query.get('startDate'), endDate: request.query.get('endDate') };
      const within = fixture<{ byAccount: { trade_date: string }[][] }>('snaptrade/activities.json').byAccount[found.index]!.filter(
        (activity) => (startDate === null || activity.trade_date.slice(0, 10) >= startDate) && (endDate === null || activity.trade_date.slice(0, 10) <= endDate),
      );
      const offset = Number(request.query.get('offset') ?? 0);
      const limit = Number(request.query.get('limit') ?? 1000);
      return { status: 200, body: { data: within.slice(offset, offset + limit), pagination: { offset, limit, total: within.length } } };
    }],
  ];

  const server = await startRecordedApiServer((request) => {
    if (!signedCorrectly(request)) return refusal('signature-invalid');
    for (const [prefix, failure] of failures) {
      if (!request.path.startsWith(prefix)) continue;
      failures.delete(prefix);
      return refusal(failure);
    }
    if (request.path === '/snapTrade/registerUser' && request.method === 'POST') {
      const userId = (request.body as { userId?: unknown } | null)?.userId;
      if (typeof userId !== 'string') return refusal('not-found');
      if (users.has(userId)) return { status: 400, body: { ...(recorded('user-already-exists').body as object), detail: `User with the following userId already exist: '${userId}'` } };
      const userSecret = randomUUID();
      users.set(userId, userSecret);
      return { status: 200, body: { ...fixture('snaptrade/register-user.json'), userId, userSecret } };
    }
    const route = userRoutes.map(([pattern, method, handle]) => ({ match: request.method === method ? pattern.exec(request.path) : null, handle })).find(({ match }) => match !== null);
    if (route === undefined) return refusal('not-found');
    const userId = userOf(request);
    if (userId === null) return refusal('user-not-authenticated');
    return route.handle(userId, request, route.match as RegExpExecArray);
  });

  return {
    url: server.url,
    clientId,
    consumerKey,
    requests: server.requests,
    completePortal(redirectUri) {
      const token = new URL(redirectUri).searchParams.get('token') ?? '';
      const portal = portals.get(token);
      if (portal === undefined) throw new Error('Not a portal link of this mock, or one already used');
      portals.delete(token);
      if (portal.reconnect !== null) {
        const connection = connections.get(portal.reconnect)!;
        connection.disabled = false;
        return { authorizationId: connection.id, returnTo: portal.customRedirect };
      }
      const id = randomUUID();
      const accounts = new Map(recordedAccounts.map((_account, index) => [randomUUID(), index] as const));
      connections.set(id, { id, userId: portal.userId, createdDate: now().toISOString(), accounts, disabled: false, removed: false });
      return { authorizationId: id, returnTo: portal.customRedirect };
    },
    disable(authorizationId) {
      const connection = connections.get(authorizationId);
      if (connection === undefined) throw new Error(`The SnapTrade mock has no connection ${authorizationId}`);
      connection.disabled = true;
    },
    failNext: (pathPrefix, errorFixture) => void failures.set(pathPrefix, errorFixture),
    close: () => server.close(),
  };
}
