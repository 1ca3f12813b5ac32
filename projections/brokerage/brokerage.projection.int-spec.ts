import { randomUUID } from 'node:crypto';
import { type ProjectionFixture, startProjectionFixture } from '../../test/support/projection-fixture.js';
import type { DomainEvent, GlobalPosition } from '../../src/core/events.js';
import type { DatabaseConnection } from '../../src/infrastructure/database/database.js';
import type { PostgresEventStore } from '../../src/infrastructure/event-store/postgres-event-store.js';
import type { CheckpointWatch } from '../../src/infrastructure/projections/checkpoint-watch.js';
import { listParkedEvents } from '../../src/infrastructure/projections/parked-events.js';
import { type BrokerageAccountEvent, brokerageAccountStreamId, brokerageAuthorizationStreamId } from '../../src/modules/brokerage/brokerage.events.js';
import { appendsOf, seededAccount, seededConnection } from './brokerage-events.test-support.js';
import { brokerageProjection } from './brokerage.projection.js';

let fixture: ProjectionFixture;
let connection: DatabaseConnection;
let store: PostgresEventStore;
let watch: CheckpointWatch;

beforeAll(async () => {
  fixture = await startProjectionFixture(brokerageProjection);
  ({ connection, store, watch } = fixture);
});
afterAll(() => fixture.close());

const ASOF = '2026-11-20T21:00:00.000Z';
const metadata = (userId: string, occurredAt: string) => ({ userId, actor: 'system' as const, requestId: 'r', causationId: 'r', correlationId: 'r', occurredAt, schemaVersion: 1 });

async function append(streamId: string, events: readonly DomainEvent[], expected: bigint | 'no_stream' | 'any', userId: string, occurredAt = ASOF): Promise<GlobalPosition> {
  const result = await store.appendToStream(streamId, events.map((event) => ({ type: event.type, data: event.data, metadata: metadata(userId, occurredAt) })), expected);
  expect(await watch.waitFor(result.position, 10_000)).toBe(true);
  return result.position;
}

async function connected() {
  const userId = randomUUID();
  const seeded = seededConnection(userId, { asOf: ASOF });
  for (const { streamId, events } of appendsOf(seeded)) await append(streamId, events, 'no_stream', userId);
  return { userId, seeded };
}

const accountRows = (userId: string) =>
  connection.db
    .selectFrom('brokerage_accounts')
    .innerJoin('brokerage_authorizations', 'brokerage_authorizations.id', 'brokerage_accounts.authorization_uuid')
    .select(['brokerage_accounts.id', 'brokerage_account_id', 'account_type', 'disabled_at', 'brokerage_authorization_id'])
    .where('brokerage_accounts.user_id', '=', userId)
    .orderBy('brokerage_account_id')
    .execute();
const balanceOf = (accountId: string) => connection.db.selectFrom('brokerage_balances').selectAll().where('account_id', '=', accountId).executeTakeFirstOrThrow();
const positionsOf = (accountId: string) => connection.db.selectFrom('brokerage_positions').select(['symbol', 'units', 'market_value']).where('account_id', '=', accountId).orderBy('symbol').execute();

describe('brokerage projection', () => {
  it("keeps the authorization, its accounts, each account's valuation with its positions, activities and snapshots", async () => {
    const { userId, seeded } = await connected();
    const [individual, roth] = seeded.accounts;
    expect(await accountRows(userId)).toEqual(
      [individual, roth]
        .map((account) => ({ id: account.data.accountId, brokerage_account_id: account.data.brokerageAccountId, account_type: account.data.accountType, disabled_at: null, brokerage_authorization_id: seeded.brokerageAuthorizationId }))
        .sort((a, b) => a.brokerage_account_id.localeCompare(b.brokerage_account_id)),
    );
    expect(await balanceOf(roth.data.accountId)).toMatchObject({ user_id: userId, cash: '6811.6800', holdings_value: '13852.8000', total_value: '20664.4800', currency: 'USD', revision: 1 });
    expect((await balanceOf(roth.data.accountId)).last_sync.toISOString()).toBe(ASOF);
    expect(await positionsOf(roth.data.accountId)).toEqual([
      { symbol: 'AAPL', units: '16.00000000', market_value: '3448.8000' },
      { symbol: 'VTI', units: '40.00000000', market_value: '10404.0000' },
    ]);
    const activities = await connection.db.selectFrom('brokerage_activities').select(({ fn }) => [fn.countAll<number>().as('count'), fn.sum<string>('amount').as('cash')]).where('account_id', '=', individual.data.accountId).executeTakeFirstOrThrow();
    expect(activities).toEqual({ count: 6, cash: '3405.8400' });
    const today = await connection.db.selectFrom('portfolio_snapshots').selectAll().where('account_id', '=', individual.data.accountId).where('date', '=', '2026-11-20').executeTakeFirstOrThrow();
    expect(today).toMatchObject({ user_id: userId, total_value: '10332.2400', cash_value: '3405.8400', holdings_value: '6926.4000' });
  });

  it('applies each event once: replaying a stream (a crash before the checkpoint) keeps one copy of each activity and the newer valuation', async () => {
    const { userId, seeded } = await connected();
    const [individual] = seeded.accounts;
    const streamId = brokerageAccountStreamId(individual.data.accountId);
    const vti = { symbol: 'VTI', description: 'Vanguard Total Stock Market ETF', currency: 'USD', units: '20', averagePrice: '250', price: '260.10', marketValue: '5202.00' };
    const newer: BrokerageAccountEvent = {
      type: 'BrokerageHoldingsRefreshed',
      data: { accountId: individual.data.accountId, asOf: '2026-11-21T21:00:00.000Z', currency: 'USD', cash: '3405.84', buyingPower: '3405.84', holdingsValue: '5202.00', totalValue: '8607.84', positions: [vti] },
    };
    await append(streamId, [newer], 2n, userId);
    const recorded = await store.readStream(streamId);
    await connection.db.transaction().execute((trx) => brokerageProjection.apply(trx, recorded));

    expect(await positionsOf(individual.data.accountId)).toEqual([{ symbol: 'VTI', units: '20.00000000', market_value: '5202.0000' }]);
    expect(await balanceOf(individual.data.accountId)).toMatchObject({ total_value: '8607.8400', revision: 3 });
    const count = await connection.db.selectFrom('brokerage_activities').select(({ fn }) => fn.countAll<number>().as('count')).where('account_id', '=', individual.data.accountId).executeTakeFirstOrThrow();
    expect(count.count).toBe(6);
    const snapshots = await connection.db.selectFrom('portfolio_snapshots').select('date').where('account_id', '=', individual.data.accountId).execute();
    expect(snapshots).toHaveLength(4);
  });

  it("keeps one snapshot a day, the later event's", async () => {
    const { userId, seeded } = await connected();
    const [individual] = seeded.accounts;
    const later: BrokerageAccountEvent = { type: 'PortfolioSnapshotsTaken', data: { accountId: individual.data.accountId, snapshots: [{ date: '2026-11-20', totalValue: '10400.00', cashValue: '3405.84', holdingsValue: '6994.16', currency: 'USD' }] } };
    await append(brokerageAccountStreamId(individual.data.accountId), [later], 2n, userId);
    const rows = await connection.db.selectFrom('portfolio_snapshots').select(['date', 'total_value']).where('account_id', '=', individual.data.accountId).where('date', '>=', '2026-11-19').orderBy('date').execute();
    expect(rows).toEqual([
      { date: '2026-11-19', total_value: '10322.2400' },
      { date: '2026-11-20', total_value: '10400.0000' },
    ]);
  });

  it('marks the authorization disabled, and a reconnect clears it and adds the accounts new at the brokerage', async () => {
    const { userId, seeded } = await connected();
    const authorizationStream = brokerageAuthorizationStreamId(seeded.authorizationUuid);
    await append(authorizationStream, [{ type: 'BrokerageAuthorizationDisabled', data: { authorizationUuid: seeded.authorizationUuid, reason: 'The brokerage asked the user to sign in again' } }], 0n, userId, '2026-11-21T08:00:00.000Z');
    expect((await accountRows(userId)).map((row) => row.disabled_at?.toISOString())).toEqual(['2026-11-21T08:00:00.000Z', '2026-11-21T08:00:00.000Z']);

    const added = seededAccount(userId, 'Parkside Brokerage', `acct_${randomUUID()}`, 3, 'traditional_ira', ASOF);
    await append(authorizationStream, [{ type: 'BrokerageAuthorizationReconnected', data: { authorizationUuid: seeded.authorizationUuid, addedAccounts: [added.data] } }], 1n, userId, '2026-11-22T08:00:00.000Z');
    const rows = await accountRows(userId);
    expect(rows).toHaveLength(3);
    expect(rows.every((row) => row.disabled_at === null)).toBe(true);
    expect(rows.map((row) => row.account_type).sort()).toEqual(['individual', 'roth_ira', 'traditional_ira']);
  });

  it("parks a valuation it cannot store and goes on with the account's next events", async () => {
    const { userId, seeded } = await connected();
    const [individual] = seeded.accounts;
    const streamId = brokerageAccountStreamId(individual.data.accountId);
    const unstorable: BrokerageAccountEvent = {
      type: 'BrokerageHoldingsRefreshed',
      data: { accountId: individual.data.accountId, asOf: '2026-11-21T21:00:00.000Z', currency: 'USD', cash: 'lots', buyingPower: '0', holdingsValue: '0', totalValue: '0', positions: [] },
    };
    await append(streamId, [unstorable], 2n, userId);
    const next: BrokerageAccountEvent = { type: 'PortfolioSnapshotsTaken', data: { accountId: individual.data.accountId, snapshots: [{ date: '2026-11-21', totalValue: '1.00', cashValue: '1.00', holdingsValue: '0.00', currency: 'USD' }] } };
    await append(streamId, [next], 3n, userId);

    const parked = (await listParkedEvents(connection.db)).filter((row) => row.stream_id === streamId);
    expect(parked).toEqual([expect.objectContaining({ projection: 'brokerage', event_type: 'BrokerageHoldingsRefreshed', status: 'parked' })]);
    expect(await balanceOf(individual.data.accountId)).toMatchObject({ total_value: '10332.2400', revision: 1 });
    expect(await positionsOf(individual.data.accountId)).toHaveLength(2);
    const latest = await connection.db.selectFrom('portfolio_snapshots').select('total_value').where('account_id', '=', individual.data.accountId).where('date', '=', '2026-11-21').executeTakeFirst();
    expect(latest).toEqual({ total_value: '1.0000' });
  });

  // Last: once the rebuilt version is live it supersedes version 1, whose runner then stops.
  it('rebuilds the same tables from the events alone (a new version replays $all)', async () => {
    await connected();
    for (const { table, original, rebuilt } of await fixture.rebuildBeside(Object.fromEntries(brokerageProjection.tables.map((table) => [table, 'id'])))) {
      expect([table, rebuilt.length]).toEqual([table, original.length]);
      expect([table, rebuilt]).toEqual([table, original]);
    }
  });
});
