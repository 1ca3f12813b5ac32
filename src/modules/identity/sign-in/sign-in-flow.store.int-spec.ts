import { createMigratedDatabase } from '../../../../test/support/test-database.js';
import type { DatabaseConnection } from '../../../infrastructure/database/database.js';
import { generateBrowserBinding, SIGN_IN_FLOW_LIFETIME_MS, SignInFlowStore, type SignInRequest } from './sign-in-flow.store.js';

let connection: DatabaseConnection;
let drop: () => Promise<void>;
let at = Date.parse('2026-11-20T10:00:00.000Z');
const clock = { now: () => new Date(at) };

beforeAll(async () => {
  const migrated = await createMigratedDatabase();
  connection = migrated.connection;
  drop = async () => {
    await connection.close();
    await migrated.database.drop();
  };
});
afterAll(() => drop());

/** The nonce in the pf_sign_in cookie of the browser these tests sign in from. */
const BROWSER = generateBrowserBinding();

/** Stores a flow the way passport-oauth2 does when it builds the authorize URL; returns its state. */
function begin(store: SignInFlowStore, verifier: string, provider = 'google'): Promise<string> {
  const request: SignInRequest = { query: {}, body: {}, provider, callbackURL: 'https://app.example.com/in', browserBinding: BROWSER };
  return new Promise((resolve, reject) => store.store(request, verifier, undefined, {}, (error, state) => (error ? reject(error) : resolve(state as string))));
}

/** Verifies a state the way passport-oauth2 does on the callback. */
function verify(store: SignInFlowStore, state: string, provider = 'google', browserBinding: string | null = BROWSER): Promise<{ verifier: string | false; callbackURL?: string }> {
  const request: SignInRequest = { query: { state }, body: {}, provider, browserBinding };
  return new Promise((resolve, reject) => store.verify(request, state, (error, verifier) => (error ? reject(error) : resolve({ verifier, callbackURL: request.callbackURL }))));
}

describe('the sign-in flow store', () => {
  it('gives back the PKCE verifier and callbackURL once for the right state, then never again', async () => {
    const store = new SignInFlowStore(connection.db, clock);
    const state = await begin(store, 'verifier-one');
    expect(await verify(store, state)).toEqual({ verifier: 'verifier-one', callbackURL: 'https://app.example.com/in' });
    expect(await verify(store, state)).toEqual({ verifier: false, callbackURL: undefined });
  });

  it('refuses the state in a browser without the binding cookie of the one that began it, and keeps it for that one', async () => {
    const store = new SignInFlowStore(connection.db, clock);
    const state = await begin(store, 'bound-verifier');
    expect((await verify(store, state, 'google', null)).verifier).toBe(false);
    expect((await verify(store, state, 'google', generateBrowserBinding())).verifier).toBe(false);
    expect((await verify(store, state, 'google', 'not a binding')).verifier).toBe(false);
    expect((await verify(store, state)).verifier).toBe('bound-verifier');
  });

  it('refuses a state 10 minutes old, one issued for another provider, and one never issued', async () => {
    const store = new SignInFlowStore(connection.db, clock);
    const late = await begin(store, 'v');
    at += SIGN_IN_FLOW_LIFETIME_MS;
    expect((await verify(store, late)).verifier).toBe(false);
    const elsewhere = await begin(store, 'v', 'github');
    expect((await verify(store, elsewhere, 'google')).verifier).toBe(false);
    expect((await verify(store, 'never-issued')).verifier).toBe(false);
  });

  it('cannot open a sealed verifier without the state, which it never stores', async () => {
    const store = new SignInFlowStore(connection.db, clock);
    const state = await begin(store, 'the-verifier');
    const rows = await connection.db.selectFrom('sign_in_flows').selectAll().execute();
    const raw = JSON.stringify(rows.map((row) => [row.state_hash.toString('latin1'), row.sealed_verifier.toString('latin1'), row.callback_url]));
    expect(raw).not.toContain(state);
    expect(raw).not.toContain('the-verifier');
    // A sealed verifier moved under another state's hash does not open.
    const other = await begin(store, 'other-verifier');
    const mine = rows.find((row) => row.sealed_verifier.length === 12 + 16 + 'the-verifier'.length)!;
    await connection.db.updateTable('sign_in_flows').set({ sealed_verifier: mine.sealed_verifier }).where('sealed_verifier', '!=', mine.sealed_verifier).execute();
    expect((await verify(store, other)).verifier).toBe(false);
  });
});
