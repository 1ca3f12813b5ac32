import { randomUUID } from 'node:crypto';
import request from 'supertest';
import type { Clock } from '../src/core/clock.js';
import { startTestApp, type TestApp } from './support/test-app.js';

/**
 * The brokerage views over a connection made the way a user makes one: POST /brokerage/connect,
 * the sandbox portal opened with no credential (302), then the first sync. Every view must tell
 * the same story — the same accounts, balance = cash + Σ market values = today's snapshot, the
 * activities adding up to cash (the port's contract: cash = Σ amount, units = Σ BUY − Σ SELL) —
 * and a disable shows as needsReauth everywhere until a reconnect clears it. Expectations come
 * from the responses, in exact integer arithmetic (bigint), never from the code under test.
 */
const RETURN_URL = 'https://app.example/brokerage/done';
const DAY = 86_400_000;
let now = Date.parse('2026-10-07T14:00:00.000Z');
const clock: Clock = { now: () => new Date(now) };
const today = () => new Date(now).toISOString().slice(0, 10);

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ clock, env: { BROKERAGE_RETURN_URL: RETURN_URL, BROKERAGE_SYNC_INTERVAL_MINUTES: '0' } });
});
afterAll(() => t.close());

// ---- exact decimals ---------------------------------------------------------------------------

/** A decimal as served (string, or JSON number: its shortest spelling is the stored decimal) scaled by 10^places, exactly; more places is an error. */
function fixed(value: string | number | null, places: number): bigint {
  if (value === null) throw new Error('Expected an amount, got null');
  const text = typeof value === 'number' ? String(value) : value;
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text);
  if (!match || (match[3] ?? '').length > places) throw new Error(`Not a decimal with at most ${places} places: ${text}`);
  const magnitude = BigInt(match[2]!) * 10n ** BigInt(places) + BigInt((match[3] ?? '').padEnd(places, '0') || '0');
  return match[1] === '-' ? -magnitude : magnitude;
}

/** Money to the cent: anything finer than a cent is an error, not rounded away. */
const cents = (value: string | number | null): bigint => fixed(value, 2);
const UNIT_PLACES = 8;
const sum = (values: readonly bigint[]): bigint => values.reduce((total, value) => total + value, 0n);

/** units × price rounded half up (away from zero) to the cent, as the port defines marketValue. */
function marketValueCents(units: string, price: string): bigint {
  const product = fixed(units, UNIT_PLACES) * fixed(price, UNIT_PLACES); // scaled by 10^16
  const divisor = 10n ** BigInt(2 * UNIT_PLACES - 2);
  const magnitude = product < 0n ? -product : product;
  const rounded = (magnitude + divisor / 2n) / divisor;
  return product < 0n ? -rounded : rounded;
}

const nextDay = (date: string) => new Date(Date.parse(`${date}T00:00:00Z`) + DAY).toISOString().slice(0, 10);

// ---- the responses ----------------------------------------------------------------------------

interface AccountRow {
  id: string;
  source: string;
  type: string;
  name: string;
  current: number | null;
  currency: string | null;
  needsReauth: boolean;
  institutionName: string | null;
  [field: string]: unknown;
}
interface Listed {
  id: string;
  name: string | null;
  institutionName: string | null;
  accountType: string | null;
  accountStatus: string | null;
  source: string;
  needsReauth: boolean;
  brokerageAuthorizationId: string | null;
  accountDetails: { id: string; balance: string | null; lastSync: string | null } | null;
  balances: Array<{ id: string; buyingPower: string | null; cash: string | null; currencyCode: string | null; currencyName: string | null; lastSync: string | null }>;
  [field: string]: unknown;
}
interface OverviewBalance {
  id: string;
  accountId: string;
  cash: string | null;
  currencyCode: string | null;
  lastSync: string | null;
  brokerageAccountId: string | null;
}
interface OverviewActivity {
  id: string;
  accountId: string;
  amount: string | null;
  type: string;
  tradeDate: string;
}
interface Position {
  id: string;
  accountId: string;
  symbol: string;
  units: string;
  price: string;
  marketValue: string;
}
interface OverviewSnapshot {
  id: string;
  accountId: string;
  date: string;
  totalValue: string;
  cashValue: string;
  holdingsValue: string;
  currency: string;
}
interface Overview {
  accounts: Listed[];
  balances: OverviewBalance[];
  positions: Position[];
  activities: OverviewActivity[];
  portfolioSnapshots: OverviewSnapshot[];
  balancesByAccount: Record<string, OverviewBalance[]>;
  positionsByAccount: Record<string, Position[]>;
  activitiesByAccount: Record<string, OverviewActivity[]>;
  userBrokerages: string[];
}
interface Activity {
  id: string;
  accountId: string;
  type: string;
  symbol: string | null;
  amount: number;
  units: number | null;
  tradeDate: string;
}
interface Snapshot {
  id: string;
  accountId: string;
  date: string;
  totalValue: number;
  cashValue: number;
  holdingsValue: number;
  currency: string;
}

// ---- the flow ---------------------------------------------------------------------------------

/** The browser opening the portal: no credential, redirects not followed; the answer must match the document. */
async function openPortal(redirectUrl: string) {
  const url = new URL(redirectUrl);
  const response = await request(t.server).get(`${url.pathname}${url.search}`).redirects(0);
  const problems = t.openApi.check('GET', url.pathname, response.status, response.headers['content-type'], response.body);
  if (problems.length > 0) throw new Error(problems.join('\n'));
  return response;
}

/** Connect (or reconnect) through the portal; the authorization id comes back on the return URL. */
async function connect(key: string, body: Record<string, unknown> = {}): Promise<string> {
  const { redirectUrl } = (await t.as(key).post('/v1/brokerage/connect', body).expect(200)).body as { redirectUrl: string };
  const portal = await openPortal(redirectUrl);
  expect(portal.status).toBe(302);
  const location = new URL(portal.headers.location as string);
  expect(`${location.origin}${location.pathname}`).toBe(RETURN_URL);
  expect(location.searchParams.get('status')).toBe('connected');
  return location.searchParams.get('brokerageAuthorizationId') ?? '';
}

const linkedAccounts = async (key: string) => ((await t.as(key).get('/v1/accounts').expect(200)).body.accounts as AccountRow[]).filter((account) => account.source === 'brokerage_link');
const brokerageAccounts = async (key: string) => (await t.as(key).get('/v1/brokerage/accounts').expect(200)).body.accounts as Listed[];
const overviewOf = async (key: string) => (await t.as(key).get('/v1/brokerage/overview').expect(200)).body as Overview;
const snapshotsOf = async (key: string, query = '') => (await t.as(key).get(`/v1/portfolio/snapshots${query}`).expect(200)).body.snapshots as Snapshot[];

/** Every activity, page by page to the end: each page full but the last, each with the same total, adding up to it. */
async function everyActivity(key: string, accountId?: string, limit = 97): Promise<Activity[]> {
  const filter = accountId === undefined ? '' : `accountId=${accountId}&`;
  const activities: Activity[] = [];
  let total: number | undefined;
  for (let offset = 0; ; offset += limit) {
    const page = (await t.as(key).get(`/v1/activities?${filter}limit=${limit}&offset=${offset}`).expect(200)).body as { activities: Activity[]; total: number };
    total ??= page.total;
    expect(page.total).toBe(total);
    activities.push(...page.activities);
    if (page.activities.length < limit) break;
  }
  expect(activities).toHaveLength(total);
  expect(new Set(activities.map((activity) => activity.id)).size).toBe(total);
  return activities;
}

/**
 * Every view agrees with every other, for the user's brokerage accounts as they are now: the
 * same ids everywhere; balance = /accounts current = cash + Σ marketValue = today's snapshot
 * total, to the cent; the activities add up to cash and to the positions' units; the overview's
 * maps are its arrays; a daily history of at least a year ending today. Returns the accounts.
 */
async function expectConsistent(key: string, authorizationId: string, minimumSnapshots: number): Promise<Listed[]> {
  const linked = await linkedAccounts(key);
  const listed = await brokerageAccounts(key);
  const overview = await overviewOf(key);
  const ids = listed.map((account) => account.id).sort();
  expect(ids.length).toBeGreaterThan(0);
  expect(new Set(ids).size).toBe(ids.length);
  expect(linked.map((account) => account.id).sort()).toEqual(ids);
  expect(overview.accounts).toEqual(listed);
  expect(overview.userBrokerages).toEqual([...new Set(listed.map((account) => account.institutionName))].sort());

  const everySnapshot = await snapshotsOf(key);
  const whole = await everyActivity(key);
  const todays = await snapshotsOf(key, `?startDate=${today()}&endDate=${today()}`);
  expect(todays.map((snapshot) => snapshot.accountId).sort()).toEqual(ids);

  for (const account of listed) {
    const row = linked.find((candidate) => candidate.id === account.id)!;
    expect(account).toMatchObject({ source: 'brokerage_link', needsReauth: false, brokerageAuthorizationId: authorizationId, accountStatus: 'open' });
    expect([row.type, row.needsReauth, row.name, row.institutionName]).toEqual(['investment', false, account.name, account.institutionName]);
    expect(account.accountDetails).toEqual({ id: expect.any(String), balance: expect.any(String), lastSync: expect.any(String) });
    expect(account.balances).toHaveLength(1);
    const [balance] = account.balances;
    expect(balance!.lastSync).toBe(account.accountDetails!.lastSync);
    expect(row.currency).toBe(balance!.currencyCode);

    // balance = GET /accounts current (list and detail) = cash + Σ marketValue = today's snapshot total.
    const total = cents(account.accountDetails!.balance);
    const cash = cents(balance!.cash);
    expect(cents(row.current)).toBe(total);
    expect(cents((await t.as(key).get(`/v1/accounts/${account.id}`).expect(200)).body.current as number)).toBe(total);
    const positions = overview.positionsByAccount[account.id]!;
    expect(positions.length).toBeGreaterThan(0);
    for (const position of positions) expect([position.symbol, cents(position.marketValue)]).toEqual([position.symbol, marketValueCents(position.units, position.price)]);
    const holdings = sum(positions.map((position) => cents(position.marketValue)));
    expect(cash + holdings).toBe(total);

    const snapshots = await snapshotsOf(key, `?accountId=${account.id}`);
    expect(snapshots).toEqual(everySnapshot.filter((snapshot) => snapshot.accountId === account.id));
    expect(snapshots.length).toBeGreaterThanOrEqual(minimumSnapshots);
    for (const [index, snapshot] of snapshots.entries()) {
      expect(cents(snapshot.cashValue) + cents(snapshot.holdingsValue)).toBe(cents(snapshot.totalValue));
      expect(snapshot.currency).toBe(balance!.currencyCode);
      if (index > 0) expect([index, snapshot.date]).toEqual([index, nextDay(snapshots[index - 1]!.date)]);
    }
    const latest = snapshots.at(-1)!;
    expect(latest.date).toBe(today());
    expect([cents(latest.totalValue), cents(latest.cashValue), cents(latest.holdingsValue)]).toEqual([total, cash, holdings]);
    expect(todays.find((snapshot) => snapshot.accountId === account.id)).toEqual(latest);
    // The overview's snapshots are the latest 30 of the history, oldest first.
    const recent = overview.portfolioSnapshots.filter((snapshot) => snapshot.accountId === account.id);
    expect(recent.map((snapshot) => snapshot.id)).toEqual(snapshots.slice(-recent.length).map((snapshot) => snapshot.id));
    expect(recent.map((snapshot) => [snapshot.date, cents(snapshot.totalValue), cents(snapshot.cashValue), cents(snapshot.holdingsValue)])).toEqual(
      snapshots.slice(-recent.length).map((snapshot) => [snapshot.date, cents(snapshot.totalValue), cents(snapshot.cashValue), cents(snapshot.holdingsValue)]),
    );

    // The activities: this account's pages are its part of the whole list; they add up to cash and to the positions' units.
    const own = await everyActivity(key, account.id);
    expect(own.length).toBeGreaterThan(0);
    expect(own).toEqual(whole.filter((activity) => activity.accountId === account.id));
    expect(sum(own.map((activity) => cents(activity.amount)))).toBe(cash);
    const net = new Map<string, bigint>(positions.map((position) => [position.symbol, 0n]));
    for (const activity of own) {
      if (activity.type !== 'BUY' && activity.type !== 'SELL') continue;
      const units = fixed(activity.units, UNIT_PLACES);
      net.set(activity.symbol!, (net.get(activity.symbol!) ?? 0n) + (activity.type === 'BUY' ? units : -units));
    }
    for (const [symbol, units] of net) {
      const position = positions.find((candidate) => candidate.symbol === symbol);
      expect([symbol, units]).toEqual([symbol, position === undefined ? 0n : fixed(position.units, UNIT_PLACES)]);
    }
    // The overview's are the newest of them (50 at most), in the same order, with the same amounts.
    const latestActivities = overview.activitiesByAccount[account.id]!;
    expect(latestActivities.length).toBe(Math.min(own.length, 50));
    expect(latestActivities.map((activity) => [activity.id, activity.type, activity.tradeDate, cents(activity.amount)])).toEqual(
      own.slice(0, latestActivities.length).map((activity) => [activity.id, activity.type, activity.tradeDate, cents(activity.amount)]),
    );

    expect(overview.balancesByAccount[account.id]).toEqual([
      expect.objectContaining({ id: balance!.id, accountId: account.id, cash: balance!.cash, currencyCode: balance!.currencyCode, lastSync: balance!.lastSync, brokerageAccountId: account.accountDetails!.id }),
    ]);
  }

  // Nothing anywhere names an account outside the list; the whole lists are their accounts' parts.
  expect([...new Set(whole.map((activity) => activity.accountId))].sort()).toEqual(ids);
  expect([...new Set(everySnapshot.map((snapshot) => snapshot.accountId))].sort()).toEqual(ids);
  const dates = whole.map((activity) => activity.tradeDate);
  expect(dates).toEqual([...dates].sort().reverse());
  expect(everySnapshot.map((snapshot) => snapshot.date)).toEqual(everySnapshot.map((snapshot) => snapshot.date).sort());
  expect(overview.activities.map((activity) => activity.id)).toEqual(whole.filter((activity) => overview.activitiesByAccount[activity.accountId]!.some((item) => item.id === activity.id)).map((activity) => activity.id));

  // The by-account maps hold every account, and are the arrays grouped, in the arrays' order.
  for (const [map, array] of [
    [overview.balancesByAccount, overview.balances],
    [overview.positionsByAccount, overview.positions],
    [overview.activitiesByAccount, overview.activities],
  ] as Array<[Record<string, unknown[]>, Array<{ accountId: string }>]>) {
    expect(Object.keys(map).sort()).toEqual(ids);
    for (const id of ids) expect(map[id]).toEqual(array.filter((item) => item.accountId === id));
  }
  expect(overview.balances.map((balance) => balance.id).sort()).toEqual(listed.map((account) => account.balances[0]!.id).sort());
  expect([...new Set(overview.portfolioSnapshots.map((snapshot) => snapshot.accountId))].sort()).toEqual(ids);
  return listed;
}

describe('brokerage views over a connection made through the sandbox portal', () => {
  let key: string;
  let authorizationId: string;
  let accounts: Listed[];

  it('connects through the portal, and after the first sync every view agrees: the same accounts, balance = /accounts current = cash + Σ market values = today’s snapshot, activities adding up to cash and to the positions, a year of daily snapshots', async () => {
    ({ key } = await t.newUser());
    authorizationId = await connect(key);
    expect(authorizationId).not.toBe('');
    await t.settle();
    accounts = await expectConsistent(key, authorizationId, 365);
  });

  it('pages activities newest first with a stable order: pages of any size make up the whole list, with its total', async () => {
    const whole = (await t.as(key).get('/v1/activities?limit=500').expect(200)).body as { activities: Activity[]; total: number };
    expect(whole.total).toBeLessThanOrEqual(500); // the whole list in one page, to compare the pages with
    expect(whole.activities).toHaveLength(whole.total);
    expect(await everyActivity(key, undefined, 7)).toEqual(whole.activities);
    expect(await everyActivity(key, undefined, 13)).toEqual(whole.activities);
    expect(await everyActivity(key, undefined, whole.total)).toEqual(whole.activities);
    // Without a limit, the first 50.
    expect((await t.as(key).get('/v1/activities').expect(200)).body).toEqual({ activities: whole.activities.slice(0, 50), total: whole.total });
    expect((await t.as(key).get(`/v1/activities?offset=${whole.total}`).expect(200)).body).toEqual({ activities: [], total: whole.total });
    expect((await t.as(key).get(`/v1/activities?offset=${whole.total - 1}&limit=500`).expect(200)).body).toEqual({ activities: whole.activities.slice(-1), total: whole.total });
  });

  it("answers 404 to an accountId that is not one of the user's brokerage accounts, and shows nothing of another user's", async () => {
    const other = await t.newUser();
    const manual = (await t.as(key).post('/v1/accounts', { name: 'Cash', type: 'bank', subtype: 'checking', currentBalance: 10 }).expect(201)).body.id as string;
    const mine = accounts[0]!.id;
    for (const [asKey, accountId] of [
      [other.key, mine],
      [key, randomUUID()],
      [key, 'not-a-uuid'],
      [key, manual],
    ]) {
      for (const path of ['/v1/activities', '/v1/portfolio/snapshots']) {
        const response = await t.as(asKey!).get(`${path}?accountId=${encodeURIComponent(accountId!)}`).expect(404);
        expect(response.body).toEqual({ code: 'NOT_FOUND', error: 'Brokerage account not found' });
      }
    }
    // An upper-case spelling of one's own id names the same account.
    expect((await t.as(key).get(`/v1/activities?accountId=${mine.toUpperCase()}&limit=500`).expect(200)).body).toEqual(
      (await t.as(key).get(`/v1/activities?accountId=${mine}&limit=500`).expect(200)).body,
    );
    expect((await t.as(other.key).get('/v1/brokerage/accounts').expect(200)).body).toEqual({ accounts: [] });
    expect((await t.as(other.key).get('/v1/brokerage/overview').expect(200)).body).toEqual({
      balances: [], activities: [], positions: [], accounts: [], portfolioSnapshots: [], balancesByAccount: {}, activitiesByAccount: {}, positionsByAccount: {}, userBrokerages: [],
    });
    expect((await t.as(other.key).get('/v1/activities').expect(200)).body).toEqual({ activities: [], total: 0 });
    expect((await t.as(other.key).get('/v1/portfolio/snapshots').expect(200)).body).toEqual({ snapshots: [] });
    expect(await linkedAccounts(other.key)).toEqual([]);
    // The manual account joins /accounts only: the brokerage views are unchanged by it.
    expect((await brokerageAccounts(key)).map((account) => account.id)).toEqual(accounts.map((account) => account.id));
  });

  it('refuses a limit outside 1..500, an offset that is not an integer ≥ 0 and a bad date range (422), and a key without the read scope (403)', async () => {
    for (const query of ['limit=0', 'limit=501', 'limit=abc', 'limit=1.5', 'offset=-1', 'offset=x', 'offset=1.5', 'offset=1e300']) {
      const response = await t.as(key).get(`/v1/activities?${query}`).expect(422);
      expect([query, response.body.error.issues[0].path]).toEqual([query, [query.split('=')[0]]]);
    }
    const repeated = await t.as(key).get(`/v1/activities?accountId=${accounts[0]!.id}&accountId=${accounts[1]!.id}`).expect(422);
    expect(repeated.body.error.issues[0].path).toEqual(['accountId']);
    for (const query of ['startDate=2026-11-20&endDate=2026-11-19', 'startDate=2025-02-30', 'endDate=20261120']) {
      await t.as(key).get(`/v1/portfolio/snapshots?${query}`).expect(422);
    }
    // The whole history is every account's, by date; a range is its part.
    const snapshots = await snapshotsOf(key);
    const perAccount = await Promise.all(accounts.map((account) => snapshotsOf(key, `?accountId=${account.id}`)));
    expect(snapshots).toHaveLength(perAccount.reduce((total, own) => total + own.length, 0));
    expect(snapshots.map((snapshot) => snapshot.date)).toEqual([...snapshots.map((snapshot) => snapshot.date)].sort());
    const from = snapshots[Math.floor(snapshots.length / 3)]!.date;
    const to = snapshots[Math.floor((2 * snapshots.length) / 3)]!.date;
    expect(await snapshotsOf(key, `?startDate=${from}&endDate=${to}`)).toEqual(snapshots.filter((snapshot) => snapshot.date >= from && snapshot.date <= to));

    const writeOnly = await t.newUser(['write']);
    for (const path of ['/v1/brokerage/accounts', '/v1/brokerage/overview', '/v1/activities', '/v1/portfolio/snapshots']) {
      expect((await t.as(writeOnly.key).get(path).expect(403)).body.error.code).toBe('FORBIDDEN');
    }
  });

  it('shows needsReauth on /accounts, /brokerage/accounts and the overview once the sandbox disables the authorization; a reconnect through the portal, a day later, clears it and the views agree again', async () => {
    const before = await brokerageAccounts(key);
    const linkedBefore = await linkedAccounts(key);
    const disabled = await t.as(key).post(`/v1/sandbox/brokerage/authorizations/${encodeURIComponent(authorizationId)}/disable`).expect(200);
    expect(disabled.body).toEqual({ success: true });
    // Documented to answer once the accounts show it: no settling first.
    const disabledLinked = await linkedAccounts(key);
    const disabledListed = await brokerageAccounts(key);
    expect(disabledLinked.map((account) => [account.id, account.needsReauth]).sort()).toEqual(accounts.map((account) => [account.id, true]).sort());
    expect(disabledListed.map((account) => [account.id, account.needsReauth, account.brokerageAuthorizationId])).toEqual(accounts.map((account) => [account.id, true, authorizationId]));
    expect((await overviewOf(key)).accounts).toEqual(disabledListed);
    // Only the flag moved: the balances stay what they were.
    expect(disabledListed.map((account) => ({ ...account, needsReauth: false }))).toEqual(before);
    expect(disabledLinked.map((account) => [account.id, account.current])).toEqual(linkedBefore.map((account) => [account.id, account.current]));
    await t.settle();
    expect((await brokerageAccounts(key)).map((account) => account.needsReauth)).toEqual(accounts.map(() => true));

    now += DAY;
    expect(await connect(key, { reconnectAuthorizationId: authorizationId })).toBe(authorizationId);
    // The portal answers once the read models have the reconnect.
    expect((await linkedAccounts(key)).map((account) => account.needsReauth)).toEqual(accounts.map(() => false));
    expect((await brokerageAccounts(key)).map((account) => account.needsReauth)).toEqual(accounts.map(() => false));
    await t.settle();
    // The reconnect's sync took the new day: the same accounts, consistent again, with today's snapshot.
    const reconnected = await expectConsistent(key, authorizationId, 366);
    expect(reconnected.map((account) => account.id)).toEqual(accounts.map((account) => account.id));
    expect((await linkedAccounts(key)).map((account) => account.needsReauth)).toEqual(accounts.map(() => false));
  });
});
