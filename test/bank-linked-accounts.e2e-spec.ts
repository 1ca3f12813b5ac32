import { randomBytes } from 'node:crypto';
import { startTestApp, type TestApp } from './support/test-app.js';

const LINK_TOKEN_KEY = randomBytes(32).toString('base64');

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ env: { LINK_TOKEN_KEY } });
}, 180_000);
afterAll(() => t.close(), 180_000);

interface Listed {
  id: string;
  subtype: string | null;
  logo: string | null;
  url: string | null;
  institutionName: string | null;
}

/** A user with one sandbox item, linked and synced (its year of transactions listed). */
async function userWithSyncedItem(institutionId = 'ins_100003') {
  const user = await t.newUser();
  const { publicToken } = (await t.as(user.key).post('/v1/sandbox/public-token', { institutionId }).expect(200)).body as { publicToken: string };
  const item = (await t.as(user.key).post('/v1/link/items', { publicToken }).expect(201)).body as { id: string; linkItemId: string };
  await t.settle();
  const accounts = (await t.as(user.key).get('/v1/accounts').expect(200)).body.accounts as Listed[];
  return { ...user, item, accounts };
}

describe('bank-linked transactions', () => {
  it("show their account's institution: logo, site and logo domain as /accounts has them; a manual account's show none", async () => {
    const { key, accounts } = await userWithSyncedItem('ins_100003');
    const page = (await t.as(key).get('/v1/transactions?limit=200').expect(200)).body.transactions as Array<Record<string, unknown>>;
    expect(page.length).toBeGreaterThan(20);
    const byId = new Map(accounts.map((account) => [account.id, account]));
    for (const transaction of page) {
      const account = byId.get(transaction.accountId as string) as Listed;
      expect(transaction).toMatchObject({
        source: 'bank_link',
        institutionName: 'Cedar & Main Bank',
        institutionLogo: account.logo,
        institutionUrl: account.url,
        accountLogoDomain: 'cedarandmain.example',
      });
    }
    expect(accounts[0].logo).toMatch(/^https:\/\/logos\./);
    expect(accounts[0].url).toBe('https://www.cedarandmain.example');

    const manual = (await t.as(key).post('/v1/accounts', { name: 'Cash', type: 'bank', subtype: 'checking', currentBalance: 10, institutionName: 'Under the mattress' }).expect(201)).body;
    const typed = (await t.as(key).post('/v1/transactions', { accountId: manual.id, amount: -2, date: '2026-11-20', name: 'Coffee' }).expect(201)).body;
    expect(typed).toMatchObject({ institutionName: 'Under the mattress', institutionLogo: null, institutionUrl: null, accountLogoDomain: null });
  }, 180_000);
});
