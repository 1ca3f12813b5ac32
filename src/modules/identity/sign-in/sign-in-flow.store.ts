import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../../../core/clock.js';
import type { Database } from '../../../infrastructure/database/schema.js';

/** Long enough to type a password and approve a consent screen, short enough to be useless later. */
export const SIGN_IN_FLOW_LIFETIME_MS = 10 * 60 * 1000;

/** A sign-in in flight, as the passport request carries it between the strategy and this store. */
export interface SignInRequest {
  readonly query: Record<string, string>;
  readonly body: Record<string, never>;
  readonly provider: string;
  /** Where to send the browser afterwards: set on the way out, read back on the way in. */
  callbackURL?: string;
  /** The nonce in the browser's pf_sign_in cookie: stored hashed with the flow, required to finish it. */
  browserBinding?: string | null;
}

type Stored = (error: Error | null, state?: string) => void;
type Verified = (error: Error | null, verifierOrOk: string | false, info?: { message: string }) => void;

/**
 * passport-oauth2's PKCE state store, kept in PostgreSQL so any instance can finish a sign-in
 * another one began (no express-session). The row is found by the SHA-256 of `state` and
 * deleted on first use; the PKCE verifier is sealed (AES-256-GCM) with a key derived from the
 * state, which is never stored, so the table alone gives away neither.
 */
export class SignInFlowStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
  ) {}

  /** passport-oauth2 picks the PKCE form of this method by its arity (5): keep all the parameters. */
  store(request: SignInRequest, verifier: string, _state: unknown, _meta: unknown, done: Stored): void {
    this.begin(request, verifier).then(
      (state) => done(null, state),
      (error: Error) => done(error),
    );
  }

  /**
   * The verifier is passed on as `ok`: passport-oauth2 then sends it with the code. This runs
   * before the code is exchanged, so a state from another browser never gets that far.
   */
  verify(request: SignInRequest, state: string, done: Verified): void {
    this.consume(request.provider, state, request.browserBinding).then(
      (flow) => {
        if (!flow) return done(null, false, { message: 'The sign-in state is unknown, expired or already used.' });
        request.callbackURL = flow.callbackURL;
        done(null, flow.verifier);
      },
      (error: Error) => done(error, false),
    );
  }

  /**
   * Takes the flow out of the table (single use); null when unknown, expired, for another provider,
   * or begun in another browser. A browser without the flow's binding cannot use the flow up: the
   * one that began it may still finish it (a forged callback does not spoil a genuine sign-in).
   */
  async consume(provider: string, state: string | undefined, browserBinding: string | null | undefined): Promise<{ callbackURL: string; verifier: string } | null> {
    if (!state || state.length > 200 || !browserBinding || !isBrowserBindingFormat(browserBinding)) return null;
    const row = await this.db
      .deleteFrom('sign_in_flows')
      .where('state_hash', '=', hashState(state))
      .where('browser_binding_hash', '=', hashBrowserBinding(browserBinding))
      .returningAll()
      .executeTakeFirst();
    if (!row || row.provider !== provider || row.expires_at.getTime() <= this.clock.now().getTime()) return null;
    const verifier = unseal(row.sealed_verifier, state, sealContext(row.provider, row.callback_url));
    return verifier === null ? null : { callbackURL: row.callback_url, verifier };
  }

  private async begin(request: SignInRequest, verifier: string): Promise<string> {
    if (!request.callbackURL) throw new Error('A sign-in needs its callbackURL before it is stored.');
    if (!request.browserBinding) throw new Error('A sign-in needs its browser binding before it is stored.');
    const now = this.clock.now();
    const state = randomBytes(32).toString('base64url');
    await this.db.deleteFrom('sign_in_flows').where('expires_at', '<=', now).execute();
    await this.db
      .insertInto('sign_in_flows')
      .values({
        state_hash: hashState(state),
        provider: request.provider,
        callback_url: request.callbackURL,
        sealed_verifier: seal(verifier, state, sealContext(request.provider, request.callbackURL)),
        created_at: now,
        expires_at: new Date(now.getTime() + SIGN_IN_FLOW_LIFETIME_MS),
        browser_binding_hash: hashBrowserBinding(request.browserBinding),
      })
      .execute();
    return state;
  }
}

/** A new browser binding: 256 bits from the CSPRNG, base64url, for the pf_sign_in cookie. */
export function generateBrowserBinding(): string {
  return randomBytes(32).toString('base64url');
}

export function isBrowserBindingFormat(candidate: string): boolean {
  return /^[A-Za-z0-9_-]{43}$/.test(candidate);
}

function hashBrowserBinding(binding: string): Buffer {
  return createHash('sha256').update(`ledgerline sign-in browser\n${binding}`).digest();
}

function hashState(state: string): Buffer {
  return createHash('sha256').update(state).digest();
}

/** A key only the holder of `state` can derive; HMAC keeps it independent of the stored hash. */
function sealKey(state: string): Buffer {
  return createHmac('sha256', state).update('ledgerline sign-in verifier').digest();
}

const sealContext = (provider: string, callbackURL: string) => Buffer.from(`${provider}\n${callbackURL}`);

function seal(verifier: string, state: string, context: Buffer): Buffer {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', sealKey(state), iv).setAAD(context);
  const sealed = Buffer.concat([cipher.update(verifier, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), sealed]);
}

function unseal(sealed: Buffer, state: string, context: Buffer): string | null {
  try {
    const decipher = createDecipheriv('aes-256-gcm', sealKey(state), sealed.subarray(0, 12)).setAAD(context);
    decipher.setAuthTag(sealed.subarray(12, 28));
    return Buffer.concat([decipher.update(sealed.subarray(28)), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
}
