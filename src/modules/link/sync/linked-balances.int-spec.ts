import { randomUUID } from 'node:crypto';
import { createMigratedDatabase, type TestDatabase } from '../../../../test/support/test-database.js';
import type { DatabaseConnection } from '../../../infrastructure/database/database.js';
import { handleCommand } from '../../../infrastructure/event-store/handle-command.js';
import { PostgresEventStore } from '../../../infrastructure/event-store/postgres-event-store.js';
import type { LinkAccount } from '../bank-link.port.js';
import { linkedAccountIdOf, linkItemStreamId, linkItemUuidOf } from '../link-items/link-item.js';
import { linkItemDecider } from '../link-items/link-item.decider.js';
import { toLinkedAccount } from '../link-items/linked-account.mapping.js';
import { refreshLinkedBalances } from './linked-balances.js';

let database: TestDatabase;
let connection: DatabaseConnection;
let eventStore: PostgresEventStore;

beforeAll(async () => {
  ({ database, connection } = await createMigratedDatabase());
  eventStore = new PostgresEventStore(connection.pool);
});
afterAll(async () => {
  await eventStore.close();
  await connection.close();
  await database.drop();
});

const checking: LinkAccount = { linkAccountId: 'acc-1', name: 'Checking', officialName: null, mask: '0001', type: 'depository', subtype: 'checking', currency: 'USD', balances: { current: '100', available: '90', limit: null } };
const card: LinkAccount = { linkAccountId: 'acc-2', name: 'Card', officialName: null, mask: '0002', type: 'credit', subtype: 'credit card', currency: 'USD', balances: { current: '-250', available: '4750', limit: '5000' } };

async function linked(userId: string, linkItemId: string): Promise<void> {
  const linkItemUuid = linkItemUuidOf(userId, linkItemId);
  const data = {
    linkItemUuid, linkItemId, provider: 'sandbox', institution: { id: 'ins_1', name: 'Bank', logo: null, url: null },
    accounts: [checking, card].map((account) => toLinkedAccount(userId, linkItemId, account)), availableProducts: [], billedProducts: [],
  };
  await handleCommand(eventStore, linkItemStreamId(linkItemUuid), linkItemDecider, { type: 'LinkItem', data }, context(userId), 'Link item');
}

const context = (userId: string) => ({ userId, actor: 'system' as const, requestId: 'bank-link-sync-test', now: new Date('2026-11-23T12:00:00.000Z') });

describe('refreshLinkedBalances', () => {
  it("records the provider's accounts whose balances moved, once: the same accounts again append nothing", async () => {
    const userId = randomUUID();
    await linked(userId, 'item-a');
    const now = [checking, { ...card, balances: { current: '-310.25', available: '4689.75', limit: '5000' } }, { ...checking, linkAccountId: 'acc-new' }];

    const first = await refreshLinkedBalances({ eventStore }, { userId, linkItemId: 'item-a', accounts: now }, context(userId));
    const again = await refreshLinkedBalances({ eventStore }, { userId, linkItemId: 'item-a', accounts: now }, context(userId));

    const cardId = linkedAccountIdOf(userId, 'item-a', 'acc-2');
    expect(first).toEqual({ refreshed: [cardId], position: expect.anything() });
    expect(again).toEqual({ refreshed: [], position: null });
    const stream = await eventStore.readStream(linkItemStreamId(linkItemUuidOf(userId, 'item-a')));
    expect(stream.map((event) => event.type)).toEqual(['LinkItemLinked', 'LinkItemBalancesRefreshed']);
    expect(stream[1].data).toEqual({ linkItemUuid: linkItemUuidOf(userId, 'item-a'), balances: [{ accountId: cardId, linkAccountId: 'acc-2', current: '-310.25', available: '4689.75', limit: '5000' }] });
    expect(stream[1].metadata).toMatchObject({ userId, actor: 'system', requestId: 'bank-link-sync-test' });
  });

  it("does not touch another user's item of the same provider id", async () => {
    const [owner, other] = [randomUUID(), randomUUID()];
    await linked(owner, 'item-b');
    await expect(refreshLinkedBalances({ eventStore }, { userId: other, linkItemId: 'item-b', accounts: [card] }, context(other))).rejects.toMatchObject({ name: 'NotFoundError' });
    expect((await eventStore.readStream(linkItemStreamId(linkItemUuidOf(owner, 'item-b')))).map((event) => event.type)).toEqual(['LinkItemLinked']);
  });
});
