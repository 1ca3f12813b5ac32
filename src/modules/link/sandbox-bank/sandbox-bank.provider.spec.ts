import { BANK_LINK_WEBHOOK_CODES, BankLinkError, type ProviderTransaction } from '../bank-link.port.js';
import { createSandboxBank, SANDBOX_SIGNATURE_HEADER, type SandboxBank } from './index.js';

const asOf = '2026-11-20';
const now = new Date('2026-11-20T15:30:00.000Z');

async function linkedItem(bank: SandboxBank = createSandboxBank({ seed: 3, asOf, clock: { now: () => now } })) {
  const item = await bank.exchangePublicToken(bank.createPublicToken({ institutionId: 'ins_100003' }));
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
    expect(await bank.createLinkToken({ userId: 'user-1' })).toEqual({ linkToken: expect.stringMatching(/^link-sandbox-/), expiration: '2026-11-20T19:30:00.000Z' });
    await expect(bank.createLinkToken({ userId: 'user-1', reconnectItemId: item.itemId })).resolves.toHaveProperty('linkToken');
    await expectError(bank.createLinkToken({ userId: 'user-1', reconnectItemId: 'nope' }), 'ITEM_NOT_FOUND');
  });

  it('exchanges a public token once for an item with four accounts at the chosen institution', async () => {
    const bank = createSandboxBank({ seed: 3, asOf });
    const publicToken = bank.createPublicToken({ institutionId: 'ins_100002' });
    const item = await bank.exchangePublicToken(publicToken);
    expect(item.institution.id).toBe('ins_100002');
    expect(item.accounts.map((account) => account.subtype)).toEqual(['checking', 'savings', 'credit card', 'auto']);
    expect(item.accounts[0]).not.toHaveProperty('openingBalance');
    await expectError(bank.exchangePublicToken(publicToken), 'INVALID_PUBLIC_TOKEN');
    expect(() => bank.createPublicToken({ institutionId: 'ins_missing' })).toThrow(BankLinkError);
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
      expect(bank.verifyWebhook(fired.rawBody, fired.headers, now)).toBe(true);
      expect(bank.parseWebhook(fired.rawBody)).toEqual(fired.webhook);
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
    expect(bank.verifyWebhook(fired.rawBody, upperCased, now)).toBe(true);
    expect(bank.verifyWebhook(fired.rawBody.replace(item.itemId, 'someone-else'), fired.headers, now)).toBe(false);
    expect(bank.verifyWebhook(`${fired.rawBody} `, fired.headers, now)).toBe(false);
    expect(createSandboxBank({ seed: 3, asOf, webhookSecret: 'other' }).verifyWebhook(fired.rawBody, fired.headers, now)).toBe(false);
    expect(bank.verifyWebhook(fired.rawBody, {}, now)).toBe(false);
    expect(bank.verifyWebhook(fired.rawBody, { [SANDBOX_SIGNATURE_HEADER]: 't=1,v1=abc' }, now)).toBe(false);
  });

  it('parses unknown or malformed bodies as UNRECOGNISED', () => {
    const bank = createSandboxBank({ seed: 3, asOf });
    expect(bank.parseWebhook('not json')).toEqual({ code: 'UNRECOGNISED', rawCode: null, itemId: null, webhookId: null });
    expect(bank.parseWebhook('{"webhook_code":"HOLDINGS_UPDATE","item_id":"i1","webhook_id":"w1"}')).toEqual({ code: 'UNRECOGNISED', rawCode: 'HOLDINGS_UPDATE', itemId: 'i1', webhookId: 'w1' });
    expect(bank.parseWebhook('{"webhook_code":"PENDING_DISCONNECT","item_id":"i1","webhook_id":"w1"}')).toMatchObject({ code: 'UNRECOGNISED' });
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
});
