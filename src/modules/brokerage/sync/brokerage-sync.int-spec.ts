import { randomBytes, randomUUID } from 'node:crypto';
import { createMigratedDatabase, type TestDatabase } from '../../../../test/support/test-database.js';
import type { DatabaseConnection } from '../../../infrastructure/database/database.js';
import { PostgresEventStore } from '../../../infrastructure/event-store/postgres-event-store.js';
import { handleCommand } from '../../../infrastructure/event-store/handle-command.js';
import { AccessTokenSealer } from '../../link/provider/access-token-sealer.js';
import { createSandboxMarket } from '../../quotes/sandbox-market/index.js';
import { toBrokerageAccountData } from '../accounts/brokerage-account.mapping.js';
import { brokerageAuthorizationDecider } from '../authorizations/brokerage-authorization.decider.js';
import type { BrokerageLink } from '../brokerage-link.wiring.js';
import { type BrokerageAccountData, brokerageAccountStreamId, brokerageAuthorizationStreamId, brokerageAuthorizationUuidOf } from '../brokerage.events.js';
import { brokerageUserFor } from '../provider/brokerage-users.js';
import { createPersistentSandboxBrokerage } from '../provider/persistent-sandbox-brokerage.js';
import { brokerageSyncJob } from './brokerage-sync.job.js';

let database: TestDatabase;
let connection: DatabaseConnection;
let store: PostgresEventStore;
let link: BrokerageLink;
const clock = { now: () => new Date('2026-11-20T10:00:00.000Z') };

beforeAll(async () => {
  ({ database, connection } = await createMigratedDatabase());
  store = new PostgresEventStore(connection.pool);
  const sandbox = createPersistentSandboxBrokerage(connection.db, { clock, market: createSandboxMarket(), portalUrl: 'http://ledgerline.test/portal' });
  link = { providerName: 'sandbox', provider: sandbox, sandbox, sealer: new AccessTokenSealer(randomBytes(32)), returnUrl: 'http://ledgerline.test/', portalReturnUrl: 'http://ledgerline.test/v1/brokerage/portal/return' };
});
afterAll(async () => {
  await store.close();
  await connection.close();
  await database.drop();
});

/** A user with one connected authorization, recorded as the portal's completion records it. */
async function connected(): Promise<{ userId: string; brokerageAuthorizationId: string; accounts: BrokerageAccountData[] }> {
  const userId = randomUUID();
  const sandbox = link.sandbox!;
  const user = await brokerageUserFor(connection.db, link, userId, clock.now());
  const portal = await sandbox.createConnectionPortal({ user });
  const { authorization } = await sandbox.completePortalSession(new URL(portal.redirectUri).searchParams.get('session')!);
  const accounts = (await sandbox.listAccounts(user)).map((account) => toBrokerageAccountData(userId, account));
  const authorizationUuid = brokerageAuthorizationUuidOf(userId, authorization.id);
  const data = { authorizationUuid, brokerageAuthorizationId: authorization.id, provider: 'sandbox', brokerage: authorization.brokerage, accounts };
  await handleCommand(store, brokerageAuthorizationStreamId(authorizationUuid), brokerageAuthorizationDecider, { type: 'RecordPortalCompletion', data }, { userId, actor: 'user', requestId: 'r', now: clock.now() }, 'Brokerage authorization');
  return { userId, brokerageAuthorizationId: authorization.id, accounts };
}

const streams = (accounts: readonly BrokerageAccountData[]) => Promise.all(accounts.map((account) => store.readStream(brokerageAccountStreamId(account.accountId))));
const shape = (history: Awaited<ReturnType<typeof streams>>) => history.map((events) => events.map((event) => [event.type, JSON.stringify(event.data)]));

describe('the brokerage sync job', () => {
  it('resumes a run that crashed after its first account without appending anything twice, and a third run appends nothing', async () => {
    const { userId, brokerageAuthorizationId, accounts } = await connected();
    const dependencies = { database: connection, eventStore: store, clock, brokerageLink: async () => link };
    const crashing = brokerageSyncJob(dependencies, {
      afterAccount: () => {
        throw new Error('the worker died');
      },
    });
    await expect(crashing.handle({ userId, brokerageAuthorizationId })).rejects.toThrow('the worker died');
    const afterCrash = await streams(accounts);
    expect(afterCrash.map((events) => events.length)).toEqual([3, 0]);

    const job = brokerageSyncJob(dependencies);
    await job.handle({ userId, brokerageAuthorizationId });
    const resumed = await streams(accounts);
    expect(shape(resumed)[0]).toEqual(shape(afterCrash)[0]);
    expect(resumed.map((events) => events.map((event) => event.type))).toEqual([
      ['BrokerageActivitiesImported', 'BrokerageHoldingsRefreshed', 'PortfolioSnapshotsTaken'],
      ['BrokerageActivitiesImported', 'BrokerageHoldingsRefreshed', 'PortfolioSnapshotsTaken'],
    ]);

    await Promise.all([job.handle({ userId, brokerageAuthorizationId }), job.handle({ userId, brokerageAuthorizationId })]);
    expect(shape(await streams(accounts))).toEqual(shape(resumed));
  });

  it('does nothing for an authorization the user does not have, or one of another user', async () => {
    const { brokerageAuthorizationId, accounts } = await connected();
    const job = brokerageSyncJob({ database: connection, eventStore: store, clock, brokerageLink: async () => link });
    await job.handle({ userId: randomUUID(), brokerageAuthorizationId });
    expect((await streams(accounts)).map((events) => events.length)).toEqual([0, 0]);
  });
});
