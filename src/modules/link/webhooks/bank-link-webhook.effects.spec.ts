import { sandboxWebhook } from '../sandbox-bank/sandbox-webhook-rules.js';
import { effectOfWebhook } from './bank-link-webhook.effects.js';

const firedAt = new Date('2026-11-20T12:00:00.000Z');
const effectOf = (code: Parameters<typeof sandboxWebhook>[1]) => effectOfWebhook(sandboxWebhook('item-1', code, firedAt, 'w-1'), 'uuid-1');

describe('what each bank-link webhook code does', () => {
  it('queues a sync for SYNC_UPDATES_AVAILABLE', () => {
    expect(effectOf('SYNC_UPDATES_AVAILABLE')).toEqual({ type: 'QueueSync' });
  });

  it('records login required and errors (needsReauth), and the repair that clears them', () => {
    expect(effectOf('ITEM_LOGIN_REQUIRED')).toEqual({ type: 'ExecuteCommand', command: { type: 'RecordLoginRequired', linkItemUuid: 'uuid-1', error: { errorCode: 'ITEM_LOGIN_REQUIRED', errorMessage: expect.any(String) } } });
    expect(effectOf('ERROR')).toEqual({ type: 'ExecuteCommand', command: { type: 'RecordItemError', linkItemUuid: 'uuid-1', error: { errorCode: 'INSTITUTION_DOWN', errorMessage: expect.any(String) } } });
    expect(effectOf('LOGIN_REPAIRED')).toEqual({ type: 'ExecuteCommand', command: { type: 'RecordLoginRepaired', linkItemUuid: 'uuid-1' } });
  });

  it('sets pendingDisconnectAt to the disconnect time, or to the consent’s expiration time', () => {
    expect(effectOf('PENDING_DISCONNECT')).toEqual({ type: 'ExecuteCommand', command: { type: 'RecordPendingDisconnect', linkItemUuid: 'uuid-1', disconnectAt: '2026-11-27T12:00:00.000Z' } });
    const expiring = effectOfWebhook({ webhookId: 'w-2', code: 'PENDING_EXPIRATION', itemId: 'item-1', consentExpiresAt: '2027-01-31T00:00:00.000Z' }, 'uuid-1');
    expect(expiring).toEqual({ type: 'ExecuteCommand', command: { type: 'RecordPendingDisconnect', linkItemUuid: 'uuid-1', disconnectAt: '2027-01-31T00:00:00.000Z' } });
  });

  it('records new accounts available', () => {
    expect(effectOf('NEW_ACCOUNTS_AVAILABLE')).toEqual({ type: 'ExecuteCommand', command: { type: 'RecordNewAccountsAvailable', linkItemUuid: 'uuid-1' } });
  });
});
