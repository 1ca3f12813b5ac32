import { randomUUID } from 'node:crypto';
import { type ProjectionFixture, startProjectionFixture } from '../../test/support/projection-fixture.js';
import type { DomainEvent, GlobalPosition } from '../../src/core/events.js';
import type { DatabaseConnection } from '../../src/infrastructure/database/database.js';
import type { PostgresEventStore } from '../../src/infrastructure/event-store/postgres-event-store.js';
import type { CheckpointWatch } from '../../src/infrastructure/projections/checkpoint-watch.js';
import { listParkedEvents } from '../../src/infrastructure/projections/parked-events.js';
import { accountStreamId } from '../../src/modules/accounts/account.js';
import { type BrokerageAccountEvent, type BrokerageAuthorizationEvent, brokerageAccountStreamId, brokerageAuthorizationStreamId } from '../../src/modules/brokerage/brokerage.events.js';
import { type LinkedAccountData, type LinkItemEvent, linkItemStreamId } from '../../src/modules/link/link-items/link-item.js';
import { accountsProjection } from './accounts.projection.js';

let fixture: ProjectionFixture;
let connection: DatabaseConnection;
let store: PostgresEventStore;
let watch: CheckpointWatch;

beforeAll(async () => {
  fixture = await startProjectionFixture(accountsProjection);
  ({ connection, store, watch } = fixture);
});
afterAll(() => fixture.close());

const metadata = (userId: string, occurredAt: string) => ({ userId, actor: 'system' as const, requestId: 'r', causationId: 'r', correlationId: 'r', occurredAt, schemaVersion: 1 });

async function append(streamId: string, events: readonly DomainEvent[], expected: bigint | 'no_stream', userId: string, occurredAt: string): Promise<GlobalPosition> {
  const result = await store.appendToStream(streamId, events.map((event) => ({ type: event.type, data: event.data, metadata: metadata(userId, occurredAt) })), expected);
  expect(await watch.waitFor(result.position, 10_000)).toBe(true);
  return result.position;
}

function account(accountId: string, linkAccountId: string, type: 'bank' | 'credit_card', balances: LinkedAccountData['balances']): LinkedAccountData {
  return {
    accountId, linkAccountId, name: linkAccountId, officialName: null, mask: '0001', providerType: type === 'bank' ? 'depository' : 'credit',
    providerSubtype: null, type, subtype: type === 'bank' ? 'checking' : 'credit card', currency: 'USD', balances,
  };
}

async function linkedItem() {
  const userId = randomUUID();
  const linkItemUuid = randomUUID();
  const [checking, card] = [randomUUID(), randomUUID()];
  const linked: LinkItemEvent = {
    type: 'LinkItemLinked',
    data: {
      linkItemUuid, linkItemId: `item-${linkItemUuid}`, provider: 'sandbox', institution: { id: 'ins_1', name: 'Bank', logo: null, url: null },
      accounts: [account(checking, 'acc-1', 'bank', { current: '100', available: '90', limit: null }), account(card, 'acc-2', 'credit_card', { current: '-250', available: '4750', limit: '5000' })],
      availableProducts: ['transactions'], billedProducts: ['transactions'],
    },
  };
  await append(linkItemStreamId(linkItemUuid), [linked], 'no_stream', userId, '2026-11-20T10:00:00.000Z');
  // The user's own limit on the card lives on the account's own stream.
  await append(accountStreamId(card), [{ type: 'CreditLimitOverridden', data: { accountId: card, creditLimit: '7000' } }], 'no_stream', userId, '2026-11-20T11:00:00.000Z');
  return { userId, linkItemUuid, checking, card };
}

const rowOf = (id: string) => connection.db.selectFrom('accounts').select(['current', 'available', 'credit_limit', 'user_override_credit_limit', 'updated_at', 'revision']).where('id', '=', id).executeTakeFirstOrThrow();

describe('accounts projection: linked balances', () => {
  it("moves the refreshed accounts' current, available and institution limit, keeps the user's own limit, and leaves the other accounts as they were", async () => {
    const { userId, linkItemUuid, checking, card } = await linkedItem();
    const before = await rowOf(checking);
    const refreshed: LinkItemEvent = { type: 'LinkItemBalancesRefreshed', data: { linkItemUuid, balances: [{ accountId: card, linkAccountId: 'acc-2', current: '-310.25', available: '5689.75', limit: '6000' }] } };
    await append(linkItemStreamId(linkItemUuid), [refreshed], 0n, userId, '2026-11-21T09:30:00.000Z');

    const cardRow = await rowOf(card);
    expect(cardRow).toMatchObject({ current: '-310.2500', available: '5689.7500', credit_limit: '6000.0000', user_override_credit_limit: '7000.0000', revision: 1 });
    expect(cardRow.updated_at.toISOString()).toBe('2026-11-21T09:30:00.000Z');
    expect(await rowOf(checking)).toEqual(before);
  });

  it('applies the refresh once: replaying it (a crash before the checkpoint) changes nothing a later event set', async () => {
    const { userId, linkItemUuid, checking } = await linkedItem();
    const first: LinkItemEvent = { type: 'LinkItemBalancesRefreshed', data: { linkItemUuid, balances: [{ accountId: checking, linkAccountId: 'acc-1', current: '80', available: '80', limit: null }] } };
    const second: LinkItemEvent = { type: 'LinkItemBalancesRefreshed', data: { linkItemUuid, balances: [{ accountId: checking, linkAccountId: 'acc-1', current: '60', available: '55', limit: null }] } };
    await append(linkItemStreamId(linkItemUuid), [first, second], 0n, userId, '2026-11-21T10:00:00.000Z');
    const recordedFirst = (await store.readStream(linkItemStreamId(linkItemUuid)))[1];
    await connection.db.transaction().execute((trx) => accountsProjection.apply(trx, [recordedFirst]));
    expect(await rowOf(checking)).toMatchObject({ current: '60.0000', available: '55.0000', revision: 2 });
  });

  it("parks a refresh it cannot store and goes on with the item's next events", async () => {
    const { userId, linkItemUuid, checking, card } = await linkedItem();
    const unstorable: LinkItemEvent = { type: 'LinkItemBalancesRefreshed', data: { linkItemUuid, balances: [{ accountId: checking, linkAccountId: 'acc-1', current: 'lots', available: null, limit: null }] } };
    await append(linkItemStreamId(linkItemUuid), [unstorable], 0n, userId, '2026-11-22T10:00:00.000Z');
    const next: LinkItemEvent = { type: 'LinkItemBalancesRefreshed', data: { linkItemUuid, balances: [{ accountId: card, linkAccountId: 'acc-2', current: '-1', available: '4999', limit: '5000' }] } };
    await append(linkItemStreamId(linkItemUuid), [next], 1n, userId, '2026-11-22T10:01:00.000Z');

    const parked = (await listParkedEvents(connection.db)).filter((row) => row.stream_id === linkItemStreamId(linkItemUuid));
    expect(parked).toEqual([expect.objectContaining({ projection: 'accounts', event_type: 'LinkItemBalancesRefreshed', status: 'parked' })]);
    expect(await rowOf(checking)).toMatchObject({ current: '100.0000', revision: 0 });
    expect(await rowOf(card)).toMatchObject({ current: '-1.0000', revision: 2 });
  });
});

describe('accounts projection: a reconnected item', () => {
  it("clears the item's alerts on every account it has and adds the accounts the user added, with their balances", async () => {
    const { userId, linkItemUuid, checking, card } = await linkedItem();
    const linkItemId = `item-${linkItemUuid}`;
    const institution = { id: 'ins_1', name: 'Bank', logo: null, url: null };
    const newSavings = randomUUID();
    await append(
      linkItemStreamId(linkItemUuid),
      [
        { type: 'LinkItemLoginRequired', data: { linkItemUuid, error: { errorCode: 'ITEM_LOGIN_REQUIRED', errorMessage: 'again' } } },
        { type: 'LinkItemNewAccountsAvailable', data: { linkItemUuid } },
        { type: 'LinkItemPendingDisconnect', data: { linkItemUuid, disconnectAt: '2026-12-01T00:00:00.000Z' } },
      ],
      0n,
      userId,
      '2026-11-21T10:00:00.000Z',
    );
    const flags = (id: string) => connection.db.selectFrom('accounts').select(['needs_reauth', 'new_accounts_available', 'pending_disconnect_at', 'current', 'link_item_id', 'revision']).where('id', '=', id).executeTakeFirst();
    expect(await flags(card)).toMatchObject({ needs_reauth: true, new_accounts_available: true });

    const added = account(newSavings, 'acc-3', 'bank', { current: '2500', available: '2500', limit: null });
    await append(
      linkItemStreamId(linkItemUuid),
      [{ type: 'LinkItemReconnected', data: { linkItemUuid, linkItemId, institution, addedAccounts: [added], billedProducts: ['transactions'] } }],
      3n,
      userId,
      '2026-11-22T10:00:00.000Z',
    );
    for (const id of [checking, card, newSavings]) {
      expect(await flags(id)).toMatchObject({ needs_reauth: false, new_accounts_available: false, pending_disconnect_at: null, link_item_id: linkItemId, revision: 4 });
    }
    expect(await flags(newSavings)).toMatchObject({ current: '2500.0000' });
  });
});

describe('accounts projection: brokerage investment accounts', () => {
  const brokerageAccount = (accountId: string, brokerageAccountId: string, accountType: string) => ({
    accountId, brokerageAccountId, name: accountType, number: '****0042', institutionName: 'Parkside Investments', accountType, accountStatus: 'open', currency: 'USD',
  });
  const row = (id: string) =>
    connection.db.selectFrom('accounts').select(['source', 'type', 'subtype', 'mask', 'current', 'needs_reauth', 'institution_id', 'institution_logo', 'brokerage_account_id', 'revision', 'holdings_revision']).where('id', '=', id).executeTakeFirst();

  it('lists a connected authorization’s accounts as investments, values them by their holdings, and flags them while it is disabled', async () => {
    const userId = randomUUID();
    const authorizationUuid = randomUUID();
    const [individual, roth, traditional] = [randomUUID(), randomUUID(), randomUUID()];
    const brokerage = { id: 'brk_parkside', name: 'Parkside Investments', logo: 'https://logos.example/parkside.png' };
    const connected: BrokerageAuthorizationEvent = {
      type: 'BrokerageAuthorizationConnected',
      data: { authorizationUuid, brokerageAuthorizationId: 'auth-1', provider: 'sandbox', brokerage, accounts: [brokerageAccount(individual, 'acc-1', 'individual'), brokerageAccount(roth, 'acc-2', 'roth_ira')] },
    };
    await append(brokerageAuthorizationStreamId(authorizationUuid), [connected], 'no_stream', userId, '2026-11-20T10:00:00.000Z');
    expect(await row(individual)).toEqual({
      source: 'brokerage_link', type: 'investment', subtype: 'brokerage', mask: '0042', current: null, needs_reauth: false,
      institution_id: 'brk_parkside', institution_logo: brokerage.logo, brokerage_account_id: 'acc-1', revision: 0, holdings_revision: -1,
    });
    expect(await row(roth)).toMatchObject({ subtype: 'roth' });

    const holdings = (totalValue: string): BrokerageAccountEvent => ({
      type: 'BrokerageHoldingsRefreshed',
      data: { accountId: individual, asOf: '2026-11-20T10:01:00.000Z', currency: 'USD', cash: '10', buyingPower: '10', holdingsValue: '0', totalValue, positions: [] },
    });
    await append(brokerageAccountStreamId(individual), [holdings('1234.56'), holdings('1300.01')], 'no_stream', userId, '2026-11-20T10:01:00.000Z');
    const recordedFirst = (await store.readStream(brokerageAccountStreamId(individual)))[0];
    await connection.db.transaction().execute((trx) => accountsProjection.apply(trx, [recordedFirst]));
    expect(await row(individual)).toMatchObject({ current: '1300.0100', holdings_revision: 1, revision: 0 });

    await append(brokerageAuthorizationStreamId(authorizationUuid), [{ type: 'BrokerageAuthorizationDisabled', data: { authorizationUuid, reason: 'dropped' } }], 0n, userId, '2026-11-21T10:00:00.000Z');
    expect([(await row(individual))?.needs_reauth, (await row(roth))?.needs_reauth]).toEqual([true, true]);

    const reconnected: BrokerageAuthorizationEvent = { type: 'BrokerageAuthorizationReconnected', data: { authorizationUuid, addedAccounts: [brokerageAccount(traditional, 'acc-3', 'traditional_ira')] } };
    await append(brokerageAuthorizationStreamId(authorizationUuid), [reconnected], 1n, userId, '2026-11-22T10:00:00.000Z');
    expect([(await row(individual))?.needs_reauth, (await row(roth))?.needs_reauth]).toEqual([false, false]);
    expect(await row(traditional)).toMatchObject({ source: 'brokerage_link', subtype: 'ira', institution_id: 'brk_parkside', institution_logo: brokerage.logo, needs_reauth: false, revision: 2 });
  });
});
