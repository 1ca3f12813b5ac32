import { createMigratedDatabase } from '../../../../test/support/test-database.js';
import type { DatabaseConnection } from '../../../infrastructure/database/database.js';
import { BankLinkError } from '../bank-link.port.js';
import { createPersistentSandboxBank, type PersistentSandboxBank } from './persistent-sandbox-bank.js';

let connection: DatabaseConnection;
let drop: () => Promise<void>;
let at = Date.parse('2026-11-20T10:00:00.000Z');
const clock = { now: () => new Date(at) };
/** Two adapters on one database: two instances (or an instance and a worker) of the service. */
let one: PersistentSandboxBank;
let other: PersistentSandboxBank;

beforeAll(async () => {
  const migrated = await createMigratedDatabase();
  connection = migrated.connection;
  drop = async () => {
    await connection.close();
    await migrated.database.drop();
  };
  one = createPersistentSandboxBank(connection.db, { clock });
  other = createPersistentSandboxBank(connection.db, { clock });
});
afterAll(() => drop());

describe('the sandbox bank kept in PostgreSQL', () => {
  it('spends a public token once, whichever instance exchanges it, even when two race', async () => {
    const publicToken = await one.createPublicToken({ institutionId: 'ins_100001' });
    const results = await Promise.allSettled([one.exchangePublicToken(publicToken), other.exchangePublicToken(publicToken)]);
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
    const refused = results.find((result) => result.status === 'rejected') as PromiseRejectedResult;
    expect(refused.reason).toBeInstanceOf(BankLinkError);
    expect(refused.reason).toMatchObject({ code: 'INVALID_PUBLIC_TOKEN' });
  });

  it('refuses a public token past its 30 minutes', async () => {
    const publicToken = await one.createPublicToken();
    at += 31 * 60_000;
    await expect(one.exchangePublicToken(publicToken)).rejects.toMatchObject({ code: 'INVALID_PUBLIC_TOKEN' });
  });

  it('serves the same item to every instance: accounts, history, sync pages and status', async () => {
    const item = await one.exchangePublicToken(await one.createPublicToken({ institutionId: 'ins_100003' }));
    expect(item.institution.id).toBe('ins_100003');
    expect(await other.itemHistory(item.itemId)).toEqual(await one.itemHistory(item.itemId));
    expect(await other.syncTransactions({ accessToken: item.accessToken, count: 20 })).toEqual(await one.syncTransactions({ accessToken: item.accessToken, count: 20 }));

    await one.fireWebhook({ itemId: item.itemId, code: 'ITEM_LOGIN_REQUIRED' });
    expect(await other.getItemStatus(item.accessToken)).toEqual({ status: 'login_required' });
    await expect(other.syncTransactions({ accessToken: item.accessToken })).rejects.toMatchObject({ code: 'ITEM_LOGIN_REQUIRED' });
    await other.fireWebhook({ itemId: item.itemId, code: 'LOGIN_REPAIRED' });
    expect(await one.getItemStatus(item.accessToken)).toEqual({ status: 'ok' });
    const fired = await one.fireWebhook({ itemId: item.itemId, code: 'PENDING_EXPIRATION', at: new Date('2026-11-21T00:00:00.000Z') });
    expect(other.verifyWebhook(fired.rawBody, fired.headers, new Date('2026-11-21T00:04:00.000Z'))).toBe(true);
    expect(other.verifyWebhook(fired.rawBody, fired.headers, new Date('2026-11-21T00:05:01.000Z'))).toBe(false);
    expect(other.parseWebhook(fired.rawBody)).toEqual(fired.webhook);
    expect(await other.getItemStatus(item.accessToken)).toEqual({ status: 'pending_disconnect', disconnectAt: '2026-11-28T00:00:00.000Z' });

    await other.removeItem(item.accessToken);
    await expect(one.getItemStatus(item.accessToken)).rejects.toMatchObject({ code: 'INVALID_ACCESS_TOKEN' });
    await expect(one.createLinkToken({ userId: 'u', reconnectItemId: item.itemId })).rejects.toMatchObject({ code: 'ITEM_NOT_FOUND' });
  });

  it('knows the five sandbox institutions and no other', async () => {
    await expect(one.createPublicToken({ institutionId: 'ins_999999' })).rejects.toMatchObject({ code: 'INSTITUTION_NOT_FOUND' });
  });
});
