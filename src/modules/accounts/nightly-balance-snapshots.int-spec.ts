import { randomUUID } from 'node:crypto';
import { createMigratedDatabase, type TestDatabase } from '../../../test/support/test-database.js';
import { accountsProjection } from '../../../projections/accounts/accounts.projection.js';
import { balanceSnapshotsProjection } from '../../../projections/balance-snapshots/balance-snapshots.projection.js';
import type { Clock } from '../../core/clock.js';
import type { GlobalPosition } from '../../core/events.js';
import type { DatabaseConnection } from '../../infrastructure/database/database.js';
import { type CommandContext, handleCommand } from '../../infrastructure/event-store/handle-command.js';
import { PostgresEventStore } from '../../infrastructure/event-store/postgres-event-store.js';
import { CheckpointWatch } from '../../infrastructure/projections/checkpoint-watch.js';
import { ProjectionDaemon } from '../../infrastructure/projections/projection-daemon.js';
import type { LinkAccount } from '../link/bank-link.port.js';
import { linkedAccountIdOf, linkItemStreamId, linkItemUuidOf } from '../link/link-items/link-item.js';
import { linkItemDecider } from '../link/link-items/link-item.decider.js';
import { toLinkedAccount } from '../link/link-items/linked-account.mapping.js';
import { refreshLinkedBalances } from '../link/sync/linked-balances.js';
import { accountStreamId } from './account.js';
import { ExecuteAccountCommand, ExecuteAccountCommandHandler } from './account.commands.js';
import { ListBalanceSnapshots, ListBalanceSnapshotsHandler } from './balance-snapshot.queries.js';
import { nightlyBalanceSnapshotsJob } from './nightly-balance-snapshots.job.js';

let database: TestDatabase;
let connection: DatabaseConnection;
let eventStore: PostgresEventStore;
let watch: CheckpointWatch;
let daemon: ProjectionDaemon;
let now = new Date('2026-11-23T23:55:00.000Z');
const clock: Clock = { now: () => now };

beforeAll(async () => {
  ({ database, connection } = await createMigratedDatabase());
  eventStore = new PostgresEventStore(connection.pool);
  const projections = [accountsProjection, balanceSnapshotsProjection];
  watch = new CheckpointWatch(connection.db, connection.pool, projections);
  await watch.start();
  daemon = new ProjectionDaemon(connection, eventStore, projections, watch);
  daemon.start();
});
afterAll(async () => {
  await daemon.stop();
  await watch.close();
  await eventStore.close();
  await connection.close();
  await database.drop();
});

const account = (linkAccountId: string, type: LinkAccount['type'], subtype: string, balances: LinkAccount['balances']): LinkAccount => ({
  linkAccountId, name: linkAccountId, officialName: null, mask: '0001', type, subtype, currency: 'USD', balances,
});
const checking = account('acc-checking', 'depository', 'checking', { current: '1200.5', available: '1100', limit: null });
const card = account('acc-card', 'credit', 'credit card', { current: '-250', available: '4750', limit: '5000' });
const brokerage = account('acc-brokerage', 'investment', 'brokerage', { current: '9000', available: null, limit: null });

const context = (userId: string): CommandContext => ({ userId, actor: 'user', requestId: randomUUID(), now });

async function link(userId: string, linkItemId: string, accounts: readonly LinkAccount[]): Promise<void> {
  const linkItemUuid = linkItemUuidOf(userId, linkItemId);
  const data = {
    linkItemUuid, linkItemId, provider: 'sandbox', institution: { id: 'ins_1', name: 'Bank', logo: null, url: null },
    accounts: accounts.map((linked) => toLinkedAccount(userId, linkItemId, linked)), availableProducts: [], billedProducts: ['transactions'],
  };
  appended(await handleCommand(eventStore, linkItemStreamId(linkItemUuid), linkItemDecider, { type: 'LinkItem', data }, context(userId), 'Link item'));
}

let lastAppended: GlobalPosition | null = null;
function appended<Outcome extends { position: GlobalPosition | null }>(outcome: Outcome): Outcome {
  if (outcome.position) lastAppended = outcome.position;
  return outcome;
}

/** Everything appended so far is in both read models. */
async function caughtUp(): Promise<void> {
  if (lastAppended) expect(await watch.waitFor(lastAppended, 10_000)).toBe(true);
}

/** The job's appends are not returned to it: wait until the day's snapshots are listed. */
async function snapshotsOf(userId: string, date: string, count: number) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const listed = (await list(userId)).snapshots.filter((snapshot) => snapshot.date === date);
    if (listed.length >= count || Date.now() > deadline) return listed;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const list = (userId: string) => new ListBalanceSnapshotsHandler(connection.db).execute(new ListBalanceSnapshots(userId, {}));

describe('the nightly balance snapshots of linked accounts', () => {
  it("snapshots every bank-linked account (an investment one too) with its item's last balances and the user's own limit, once a day, and GET /balances/snapshots lists them", async () => {
    const userId = randomUUID();
    await link(userId, 'item-1', [checking, card, brokerage]);
    await link(userId, 'item-gone', [account('acc-old', 'depository', 'savings', { current: '5', available: '5', limit: null })]);
    appended(await handleCommand(eventStore, linkItemStreamId(linkItemUuidOf(userId, 'item-gone')), linkItemDecider, { type: 'DisconnectLinkItem', linkItemUuid: linkItemUuidOf(userId, 'item-gone') }, context(userId), 'Link item'));
    appended(await refreshLinkedBalances({ eventStore }, { userId, linkItemId: 'item-1', accounts: [checking, { ...card, balances: { current: '-310.25', available: '4689.75', limit: '5000' } }] }, { ...context(userId), actor: 'system' }));
    const [cardId, checkingId, investmentId] = ['acc-card', 'acc-checking', 'acc-brokerage'].map((linkAccountId) => linkedAccountIdOf(userId, 'item-1', linkAccountId));
    await caughtUp();
    const handler = new ExecuteAccountCommandHandler(eventStore, connection.db);
    appended(await handler.execute(new ExecuteAccountCommand(cardId, { type: 'OverrideCreditLimit', accountId: cardId, creditLimit: '7000' }, context(userId))));
    await caughtUp();

    const job = nightlyBalanceSnapshotsJob({ database: connection, eventStore, clock });
    await job.handle({});
    await job.handle({});

    expect(await snapshotsOf(userId, '2026-11-23', 3)).toEqual(
      [
        { accountId: checkingId, date: '2026-11-23', currentBalance: 1200.5, availableBalance: 1100, creditLimit: null },
        { accountId: cardId, date: '2026-11-23', currentBalance: -310.25, availableBalance: 4689.75, creditLimit: 7000 },
        { accountId: investmentId, date: '2026-11-23', currentBalance: 9000, availableBalance: 9000, creditLimit: null },
      ]
        .sort((a, b) => a.accountId.localeCompare(b.accountId))
        .map((snapshot) => ({ id: expect.any(String), ...snapshot })),
    );
    // A second run the same day added nothing to the card's stream: the override and one snapshot.
    expect((await eventStore.readStream(accountStreamId(cardId))).map((event) => event.type)).toEqual(['CreditLimitOverridden', 'BalanceSnapshotTaken']);
    // The disconnected item's account got none.
    expect(await eventStore.readStream(accountStreamId(linkedAccountIdOf(userId, 'item-gone', 'acc-old')))).toEqual([]);

    // The next night follows the balances the provider reported since.
    appended(await refreshLinkedBalances({ eventStore }, { userId, linkItemId: 'item-1', accounts: [{ ...checking, balances: { current: '980', available: '975.5', limit: null } }] }, { ...context(userId), actor: 'system' }));
    await caughtUp();
    now = new Date('2026-11-24T23:55:00.000Z');
    await job.handle({});
    const nextDay = await snapshotsOf(userId, '2026-11-24', 3);
    expect(nextDay).toEqual(expect.arrayContaining([expect.objectContaining({ accountId: checkingId, currentBalance: 980, availableBalance: 975.5 })]));
    expect(nextDay).toHaveLength(3);
  });
});
