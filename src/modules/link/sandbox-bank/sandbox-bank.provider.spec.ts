import { bankLinkContract } from '../bank-link-contract.test-support.js';
import { BANK_LINK_WEBHOOK_CODES, BankLinkError, type ProviderTransaction } from '../bank-link.port.js';
import { createSandboxBank, SANDBOX_SIGNATURE_HEADER, type SandboxBank } from './index.js';

const asOf = '2026-11-20';
/** The user every link flow here runs for: tokens are exchanged by the user they were issued to. */
const USER = 'user-1';
const now = new Date('2026-11-20T15:30:00.000Z');

async function linkedItem(bank: SandboxBank = createSandboxBank({ seed: 3, asOf, clock: { now: () => now } })) {
  const item = await bank.exchangePublicToken({ publicToken: bank.createPublicToken({ userId: USER, institutionId: 'ins_100003' }), userId: USER });
  return { bank, item };
}

async function syncAll(bank: SandboxBank, accessToken: string, count: number): Promise<Map<string, ProviderTransaction>> {
  const state = new Map<string, ProviderTransaction>();
  let cursor: string | undefined;
  for (;;) {
    const page = await bank.syncTransactions({ accessToken, cursor, count });
    for (const transaction of [...page.added, ...page.modified]) state.set(transaction.transactionId, transaction);
    for (const { transactionId } of page.removed) state.delete(transactionId);
    cursor = page.nextCursor;
    if (!page.hasMore) return state;
  }
}

const expectError = async (promise: Promise<unknown>, code: string): Promise<void> => {
  await expect(promise).rejects.toBeInstanceOf(BankLinkError);
  await expect(promise).rejects.toMatchObject({ code });
};

describe('the sandbox bank', () => {
  it('issues link tokens that expire four hours after the clock, and refuses to reconnect an unknown item', async () => {
    const { bank, item } = await linkedItem();
    expect(await bank.createLinkToken({ userId: USER })).toEqual({ linkToken: expect.stringMatching(/^link-sandbox-/), expiration: '2026-11-20T19:30:00.000Z' });
    await expect(bank.createLinkToken({ userId: USER, reconnectItemId: item.itemId })).resolves.toHaveProperty('linkToken');
    await expectError(bank.createLinkToken({ userId: USER, reconnectItemId: 'nope' }), 'ITEM_NOT_FOUND');
  });

  it('exchanges a public token once for an item with four accounts at the chosen institution', async () => {
    const bank = createSandboxBank({ seed: 3, asOf });
    const publicToken = bank.createPublicToken({ userId: USER, institutionId: 'ins_100002' });
    const item = await bank.exchangePublicToken({ publicToken, userId: USER });
    expect(item.institution.id).toBe('ins_100002');
    expect(item.accounts.map((account) => account.subtype)).toEqual(['checking', 'savings', 'credit card', 'auto']);
    expect(item.accounts[0]).not.toHaveProperty('openingBalance');
    await expectError(bank.exchangePublicToken({ publicToken, userId: USER }), 'INVALID_PUBLIC_TOKEN');
    expect(() => bank.createPublicToken({ userId: USER, institutionId: 'ins_missing' })).toThrow(BankLinkError);
  });

  it('is deterministic: the same seed and calls give the same ids, tokens and data', async () => {
    const first = await linkedItem(createSandboxBank({ seed: 8, asOf }));
    const second = await linkedItem(createSandboxBank({ seed: 8, asOf }));
    expect(second.item).toEqual(first.item);
    expect(JSON.stringify(second.bank.itemHistory(second.item.itemId))).toBe(JSON.stringify(first.bank.itemHistory(first.item.itemId)));
  });

  it('syncs to exactly the item history for any page size, and serves the same page for the same cursor', async () => {
    const { bank, item } = await linkedItem();
    const expected = new Map(bank.itemHistory(item.itemId).transactions.map((transaction) => [transaction.transactionId, transaction]));
    for (const count of [1000, 37]) expect(await syncAll(bank, item.accessToken, count)).toEqual(expected);
    const first = await bank.syncTransactions({ accessToken: item.accessToken, count: 3 });
    const page = await bank.syncTransactions({ accessToken: item.accessToken, cursor: first.nextCursor, count: 3 });
    expect(await bank.syncTransactions({ accessToken: item.accessToken, cursor: first.nextCursor, count: 3 })).toEqual(page);
    await expectError(bank.syncTransactions({ accessToken: item.accessToken, cursor: 'garbage' }), 'INVALID_CURSOR');
  });

  it('fires every webhook code signed, verifiable and parseable into its typed form', async () => {
    const { bank, item } = await linkedItem();
    for (const code of BANK_LINK_WEBHOOK_CODES) {
      const fired = bank.fireWebhook({ itemId: item.itemId, code });
      expect(await bank.verifyWebhook(fired.rawBody, fired.headers, now)).toBe(true);
      expect(bank.parseWebhook(fired.rawBody, fired.headers)).toEqual(fired.webhook);
      expect(fired.webhook).toMatchObject({ code, itemId: item.itemId });
    }
    const disconnect = bank.fireWebhook({ itemId: item.itemId, code: 'PENDING_DISCONNECT', at: now });
    expect(disconnect.webhook).toEqual({ webhookId: expect.any(String), code: 'PENDING_DISCONNECT', itemId: item.itemId, disconnectAt: '2026-11-27T15:30:00.000Z', reason: 'INSTITUTION_MIGRATION' });
    // Each firing is its own notification: a new id, inside the signed body.
    const again = bank.fireWebhook({ itemId: item.itemId, code: 'PENDING_DISCONNECT', at: now });
    expect(again.webhook.webhookId).not.toBe(disconnect.webhook.webhookId);
    expect(JSON.parse(again.rawBody)).toMatchObject({ webhook_id: again.webhook.webhookId });
  });

  it('rejects a tampered body, a wrong secret, and a missing or malformed signature', async () => {
    const { bank, item } = await linkedItem();
    const fired = bank.fireWebhook({ itemId: item.itemId, code: 'SYNC_UPDATES_AVAILABLE' });
    const upperCased = { [SANDBOX_SIGNATURE_HEADER.toUpperCase()]: [fired.headers[SANDBOX_SIGNATURE_HEADER]!] };
    expect(await bank.verifyWebhook(fired.rawBody, upperCased, now)).toBe(true);
    expect(await bank.verifyWebhook(fired.rawBody.replace(item.itemId, 'someone-else'), fired.headers, now)).toBe(false);
    expect(await bank.verifyWebhook(`${fired.rawBody} `, fired.headers, now)).toBe(false);
    expect(await createSandboxBank({ seed: 3, asOf, webhookSecret: Buffer.from('other') }).verifyWebhook(fired.rawBody, fired.headers, now)).toBe(false);
    // Without a secret of its own, each sandbox draws one: nobody else's webhooks verify with it.
    expect(await createSandboxBank({ seed: 3, asOf }).verifyWebhook(fired.rawBody, fired.headers, now)).toBe(false);
    expect(await bank.verifyWebhook(fired.rawBody, {}, now)).toBe(false);
    expect(await bank.verifyWebhook(fired.rawBody, { [SANDBOX_SIGNATURE_HEADER]: 't=1,v1=abc' }, now)).toBe(false);
  });

  it('parses unknown or malformed bodies as UNRECOGNISED', () => {
    const bank = createSandboxBank({ seed: 3, asOf });
    expect(bank.parseWebhook('not json', {})).toEqual({ code: 'UNRECOGNISED', rawCode: null, itemId: null, webhookId: null });
    expect(bank.parseWebhook('{"webhook_code":"HOLDINGS_UPDATE","item_id":"i1","webhook_id":"w1"}', {})).toEqual({ code: 'UNRECOGNISED', rawCode: 'HOLDINGS_UPDATE', itemId: 'i1', webhookId: 'w1' });
    expect(bank.parseWebhook('{"webhook_code":"PENDING_DISCONNECT","item_id":"i1","webhook_id":"w1"}', {})).toMatchObject({ code: 'UNRECOGNISED' });
  });

  it('simulates login required, repair, pending disconnect and errors in the item status', async () => {
    const { bank, item } = await linkedItem();
    const status = () => bank.getItemStatus(item.accessToken);
    expect(await status()).toEqual({ status: 'ok' });
    bank.fireWebhook({ itemId: item.itemId, code: 'ITEM_LOGIN_REQUIRED' });
    expect(await status()).toEqual({ status: 'login_required' });
    await expectError(bank.syncTransactions({ accessToken: item.accessToken }), 'ITEM_LOGIN_REQUIRED');
    bank.fireWebhook({ itemId: item.itemId, code: 'LOGIN_REPAIRED' });
    expect(await status()).toEqual({ status: 'ok' });
    bank.fireWebhook({ itemId: item.itemId, code: 'PENDING_DISCONNECT' });
    expect(await status()).toEqual({ status: 'pending_disconnect', disconnectAt: '2026-11-27T15:30:00.000Z' });
    bank.fireWebhook({ itemId: item.itemId, code: 'ERROR' });
    expect(await status()).toMatchObject({ status: 'error', error: { errorCode: 'INSTITUTION_DOWN' } });
    bank.fireWebhook({ itemId: item.itemId, code: 'LOGIN_REPAIRED' });
    expect(await status()).toEqual({ status: 'ok' });
  });

  it('forgets a removed item', async () => {
    const { bank, item } = await linkedItem();
    await bank.removeItem(item.accessToken);
    await expectError(bank.getItemStatus(item.accessToken), 'INVALID_ACCESS_TOKEN');
    expect(() => bank.fireWebhook({ itemId: item.itemId, code: 'LOGIN_REPAIRED' })).toThrow(BankLinkError);
  });

  it('reconnects an item through a link token issued for it: same item, fresh access token, status ok', async () => {
    let at = now.getTime();
    const bank = createSandboxBank({ seed: 3, asOf, clock: { now: () => new Date(at) } });
    const { item } = await linkedItem(bank);
    bank.fireWebhook({ itemId: item.itemId, code: 'ITEM_LOGIN_REQUIRED' });
    const { linkToken } = await bank.createLinkToken({ userId: USER, reconnectItemId: item.itemId });
    const publicToken = bank.createPublicToken({ userId: USER, linkToken, institutionId: 'ins_100001' });
    const reconnected = await bank.exchangePublicToken({ publicToken, userId: USER });
    expect(reconnected).toEqual({ ...item, accessToken: expect.stringMatching(/^access-sandbox-/) });
    expect(reconnected.accessToken).not.toBe(item.accessToken);
    await expectError(bank.getItemStatus(item.accessToken), 'INVALID_ACCESS_TOKEN');
    expect(await bank.getItemStatus(reconnected.accessToken)).toEqual({ status: 'ok' });
    await expectError(bank.exchangePublicToken({ publicToken, userId: USER }), 'INVALID_PUBLIC_TOKEN');

    // A link token without an item links a new one; one not issued, or expired, is refused.
    const { linkToken: forNewLink } = await bank.createLinkToken({ userId: USER });
    const other = await bank.exchangePublicToken({ publicToken: bank.createPublicToken({ userId: USER, linkToken: forNewLink, institutionId: 'ins_100002' }), userId: USER });
    expect(other.itemId).not.toBe(item.itemId);
    expect(() => bank.createPublicToken({ userId: USER, linkToken: 'link-sandbox-nope' })).toThrow(expect.objectContaining({ code: 'INVALID_LINK_TOKEN' }));
    at += 4 * 3_600_000;
    expect(() => bank.createPublicToken({ userId: USER, linkToken })).toThrow(expect.objectContaining({ code: 'INVALID_LINK_TOKEN' }));
  });

  it("refuses another user's link or public token, and spends neither", async () => {
    const { bank, item } = await linkedItem();
    const { linkToken } = await bank.createLinkToken({ userId: USER, reconnectItemId: item.itemId });
    expect(() => bank.createPublicToken({ userId: 'user-2', linkToken })).toThrow(expect.objectContaining({ code: 'INVALID_LINK_TOKEN' }));
    const publicToken = bank.createPublicToken({ userId: USER, linkToken });
    await expectError(bank.exchangePublicToken({ publicToken, userId: 'user-2' }), 'INVALID_PUBLIC_TOKEN');
    expect(await bank.getItemStatus(item.accessToken)).toEqual({ status: 'ok' });
    expect((await bank.exchangePublicToken({ publicToken, userId: USER })).itemId).toBe(item.itemId);
  });

  it('shares the account NEW_ACCOUNTS_AVAILABLE announced only once a reconnect adds it', async () => {
    const { bank, item } = await linkedItem();
    const reconnect = async () => bank.exchangePublicToken({ publicToken: bank.createPublicToken({ userId: USER, linkToken: (await bank.createLinkToken({ userId: USER, reconnectItemId: item.itemId })).linkToken }), userId: USER });
    bank.fireWebhook({ itemId: item.itemId, code: 'NEW_ACCOUNTS_AVAILABLE' });
    expect(await bank.getAccounts(item.accessToken)).toEqual(item.accounts);
    const first = await reconnect();
    expect(first.accounts).toHaveLength(5);
    expect(first.accounts[4]).toMatchObject({ name: 'New Savings', type: 'depository', subtype: 'savings', currency: 'USD', balances: { current: '1000.00', available: '1000.00', limit: null } });
    expect(await bank.getAccounts(first.accessToken)).toEqual(first.accounts);
    expect(bank.itemHistory(item.itemId).accounts.map((account) => account.linkAccountId)).toEqual(first.accounts.map((account) => account.linkAccountId));
    expect((await reconnect()).accounts).toEqual(first.accounts);
    bank.fireWebhook({ itemId: item.itemId, code: 'NEW_ACCOUNTS_AVAILABLE' });
    const second = await reconnect();
    expect(second.accounts.slice(0, 5)).toEqual(first.accounts);
    expect(new Set(second.accounts.map((account) => account.linkAccountId)).size).toBe(6);
    // Deterministic: the same seed and calls give the same new accounts.
    const again = await linkedItem();
    again.bank.fireWebhook({ itemId: again.item.itemId, code: 'NEW_ACCOUNTS_AVAILABLE' });
    const { linkToken } = await again.bank.createLinkToken({ userId: USER, reconnectItemId: again.item.itemId });
    expect((await again.bank.exchangePublicToken({ publicToken: again.bank.createPublicToken({ userId: USER, linkToken }), userId: USER })).accounts).toEqual(first.accounts);
  });
});

describe('a sandbox bank whose items live on after asOf', () => {
  let at = Date.parse('2026-11-20T15:30:00.000Z');
  const clock = { now: () => new Date(at) };
  const bank = createSandboxBank({ seed: 21, asOf, horizonDays: 400, clock });
  const toCents = (amount: string | null): number => Math.round(Number(amount) * 100);

  it('shows new transactions as its clock moves, from the cursor the last sync kept', async () => {
    at = Date.parse('2026-11-20T15:30:00.000Z');
    const item = await bank.exchangePublicToken({ publicToken: bank.createPublicToken({ userId: USER, institutionId: 'ins_100001' }), userId: USER });
    const state = new Map<string, ProviderTransaction>();
    const drain = async (cursor: string | undefined): Promise<string> => {
      for (;;) {
        const page = await bank.syncTransactions({ accessToken: item.accessToken, cursor, count: 500 });
        for (const transaction of [...page.added, ...page.modified]) state.set(transaction.transactionId, transaction);
        for (const { transactionId } of page.removed) state.delete(transactionId);
        cursor = page.nextCursor;
        if (!page.hasMore) return cursor;
      }
    };
    const history = (): Map<string, ProviderTransaction> => new Map(bank.itemHistory(item.itemId).transactions.map((t) => [t.transactionId, t]));
    let cursor = await drain(undefined);
    expect(state).toEqual(history());
    const linkDayIds = new Set(state.keys());
    expect(await bank.syncTransactions({ accessToken: item.accessToken, cursor })).toMatchObject({ added: [], modified: [], removed: [], hasMore: false, nextCursor: cursor });

    at += 3 * 86_400_000;
    const next = await bank.syncTransactions({ accessToken: item.accessToken, cursor, count: 500 });
    expect(next.added.length).toBeGreaterThan(0);
    expect(next.added.every((transaction) => transaction.date > asOf && transaction.date <= '2026-11-23')).toBe(true);
    cursor = await drain(cursor);
    expect(state).toEqual(history());
    expect([...state.keys()].filter((id) => !linkDayIds.has(id)).length).toBeGreaterThan(3);
    expect(await bank.syncTransactions({ accessToken: item.accessToken, cursor })).toMatchObject({ added: [], modified: [], removed: [], hasMore: false });
  });

  it('answers getAccounts with the balances of the clock’s day: opening plus what has posted by then', async () => {
    at = Date.parse('2026-11-20T09:00:00.000Z');
    const item = await bank.exchangePublicToken({ publicToken: bank.createPublicToken({ userId: USER, institutionId: 'ins_100002' }), userId: USER });
    const balancesOn = async (iso: string) => {
      at = Date.parse(`${iso}T12:00:00.000Z`);
      const accounts = await bank.getAccounts(item.accessToken);
      const history = bank.itemHistory(item.itemId);
      return { accounts, history };
    };
    const linked = await balancesOn(asOf);
    expect(linked.accounts).toEqual(item.accounts);
    // A clock behind the link day still shows the item as linked.
    const behind = await balancesOn('2026-11-02');
    expect(behind.accounts).toEqual(linked.accounts);
    expect(behind.history).toEqual(linked.history);
    const firstPage = await bank.syncTransactions({ accessToken: item.accessToken, count: 500 });
    expect(firstPage.added.length).toBe(500);
    const later = await balancesOn('2027-02-18');
    expect(later.accounts).not.toEqual(linked.accounts);
    for (const { accounts, history } of [linked, later]) {
      expect(accounts).toEqual(history.accounts.map(({ openingBalance: _opening, ...account }) => account));
      for (const account of history.accounts) {
        const posted = history.transactions.filter((t) => t.accountId === account.linkAccountId && !t.pending).reduce((sum, t) => sum + toCents(t.amount), 0);
        expect(toCents(account.balances.current)).toBe(toCents(account.openingBalance) + posted);
      }
    }
    expect(later.history.transactions[later.history.transactions.length - 1]!.date <= '2027-02-18').toBe(true);
    expect(later.history.transactions.some((t) => t.date > '2027-02-10')).toBe(true);
  });

  it('makes an item of about transactionCount transactions, and refuses a count that is not one', async () => {
    at = Date.parse('2026-11-20T12:00:00.000Z');
    const item = await bank.exchangePublicToken({ publicToken: bank.createPublicToken({ userId: USER, transactionCount: 4000 }), userId: USER });
    expect(bank.itemHistory(item.itemId).transactions).toHaveLength(4000);
    for (const transactionCount of [-1, 2.5, 1_000_001]) expect(() => bank.createPublicToken({ userId: USER, transactionCount })).toThrow(RangeError);
  });

  it('keeps items without a horizon as they were on asOf, whatever the clock says', async () => {
    const still = createSandboxBank({ seed: 3, asOf, clock: { now: () => new Date('2027-06-01T00:00:00.000Z') } });
    const item = await still.exchangePublicToken({ publicToken: still.createPublicToken({ userId: USER, institutionId: 'ins_100003' }), userId: USER });
    const reference = await linkedItem();
    expect(item.accounts).toEqual(reference.item.accounts);
    expect(JSON.stringify(still.itemHistory(item.itemId))).toBe(JSON.stringify(reference.bank.itemHistory(reference.item.itemId)));
  });
});

describe('the in-memory sandbox bank', () => {
  const bank = createSandboxBank({ seed: 11, asOf, clock: { now: () => now } });
  bankLinkContract('the in-memory sandbox bank', () => ({
    provider: bank,
    pageSize: 250,
    now: () => now,
    newItemPublicToken: async (userId) => bank.createPublicToken({ userId }),
    reconnectPublicToken: async (userId, linkToken) => bank.createPublicToken({ userId, linkToken }),
    expectedTransactions: async (item) => bank.itemHistory(item.itemId).transactions,
    requireLogin: async (item) => void bank.fireWebhook({ itemId: item.itemId, code: 'ITEM_LOGIN_REQUIRED' }),
    repairLogin: async (item) => void bank.fireWebhook({ itemId: item.itemId, code: 'LOGIN_REPAIRED' }),
    signedWebhook: async (item, code, at) => {
      const { rawBody, headers } = bank.fireWebhook({ itemId: item.itemId, code, at });
      return { rawBody, headers: { ...headers } };
    },
  }));
});
