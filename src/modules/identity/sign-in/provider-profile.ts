import type { OAuthProviderConfig } from '../../../config/oauth-providers.js';

/** Who the provider says signed in. Only `subject` identifies them; the rest is description. */
export interface ProviderProfile {
  readonly subject: string;
  readonly email: string | null;
  /** Only a verified address may attach the sign-in to an existing user with that email. */
  readonly emailVerified: boolean;
  readonly name: string | null;
}

/** The provider could not be asked (down, slow, answering errors). */
export class ProfileUnavailableError extends Error {}
/** The provider answered without saying who the user is. */
export class ProfileIncompleteError extends Error {}

export type FetchJson = (url: string, accessToken: string) => Promise<unknown>;

const PROFILE_TIMEOUT_MS = 10_000;

/** GET with the access token; the token is sent to the provider and nowhere else. */
export const fetchJson: FetchJson = async (url, accessToken) => {
  let response: Response;
  try {
    response = await fetch(url, {
      headers: { Authorization: `Bearer ${accessToken}`, Accept: 'application/json', 'User-Agent': 'Ledgerline' },
      signal: AbortSignal.timeout(PROFILE_TIMEOUT_MS),
    });
  } catch (error) {
    throw new ProfileUnavailableError(`${new URL(url).origin} did not answer: ${(error as Error).message}`);
  }
  if (!response.ok) throw new ProfileUnavailableError(`${new URL(url).origin}${new URL(url).pathname} answered ${response.status}`);
  try {
    return await response.json();
  } catch {
    throw new ProfileUnavailableError(`${new URL(url).origin}${new URL(url).pathname} did not answer JSON`);
  }
};

export async function loadProviderProfile(provider: Pick<OAuthProviderConfig, 'userinfoUrl' | 'profileDialect'>, accessToken: string, get: FetchJson = fetchJson): Promise<ProviderProfile> {
  const claims = asRecord(await get(provider.userinfoUrl, accessToken));
  switch (provider.profileDialect) {
    case 'oidc':
      return oidcProfile(claims);
    case 'github':
      return githubProfile(claims, await githubVerifiedEmail(`${provider.userinfoUrl.replace(/\/$/, '')}/emails`, accessToken, get));
  }
}

/** OpenID Connect userinfo claims (Google and most generic providers): `sub`, `email`, `email_verified`, `name`. */
function oidcProfile(claims: Record<string, unknown>): ProviderProfile {
  const subject = identifier(claims.sub) ?? identifier(claims.id);
  if (!subject) throw new ProfileIncompleteError('The userinfo answer has no sub.');
  const email = text(claims.email);
  const givenAndFamily = [text(claims.given_name), text(claims.family_name)].filter(Boolean).join(' ') || null;
  const name = text(claims.name) ?? givenAndFamily ?? text(claims.preferred_username);
  return { subject, email, emailVerified: email !== null && (claims.email_verified === true || claims.email_verified === 'true'), name };
}

/** GitHub's /user: a numeric id, and an email only when the user made one public. */
function githubProfile(user: Record<string, unknown>, verified: string | null): ProviderProfile {
  const subject = identifier(user.id);
  if (!subject) throw new ProfileIncompleteError('The GitHub user has no id.');
  const publicEmail = text(user.email);
  return { subject, email: verified ?? publicEmail, emailVerified: verified !== null, name: text(user.name) ?? text(user.login) };
}

/** /user/emails (scope user:email): the primary verified address, else any verified one. */
async function githubVerifiedEmail(url: string, accessToken: string, get: FetchJson): Promise<string | null> {
  let emails: unknown;
  try {
    emails = await get(url, accessToken);
  } catch {
    // Without the user:email scope GitHub answers 404/403: the public email, unverified, will do.
    return null;
  }
  if (!Array.isArray(emails)) return null;
  const verified = emails.map(asRecord).filter((entry) => entry.verified === true && text(entry.email));
  const chosen = verified.find((entry) => entry.primary === true) ?? verified[0];
  return chosen ? text(chosen.email) : null;
}

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
}

function identifier(value: unknown): string | null {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  return text(value);
}
