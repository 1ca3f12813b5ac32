import { type FetchJson, loadProviderProfile, ProfileIncompleteError, ProfileUnavailableError } from './provider-profile.js';

/** A provider's API as a table of URL → answer; an Error answer is thrown. */
function providerApi(answers: Record<string, unknown>): FetchJson & { calls: string[] } {
  const calls: string[] = [];
  const get = async (url: string, accessToken: string) => {
    calls.push(url);
    expect(accessToken).toBe('access-token');
    const answer = answers[url];
    if (answer instanceof Error) throw answer;
    if (answer === undefined) throw new ProfileUnavailableError(`${url} answered 404`);
    return answer;
  };
  return Object.assign(get, { calls });
}

const oidc = { userinfoUrl: 'https://idp.example.com/userinfo', profileDialect: 'oidc' as const };
const github = { userinfoUrl: 'https://api.github.com/user', profileDialect: 'github' as const };

describe('reading who signed in from the provider', () => {
  it('takes sub, email, email_verified and name from OpenID Connect userinfo', async () => {
    const api = providerApi({ [oidc.userinfoUrl]: { sub: '1184', email: 'ada@example.com', email_verified: true, name: 'Ada Lovelace' } });
    expect(await loadProviderProfile(oidc, 'access-token', api)).toEqual({ subject: '1184', email: 'ada@example.com', emailVerified: true, name: 'Ada Lovelace' });
  });

  it('treats an email without email_verified as unverified and builds a name from its parts', async () => {
    const api = providerApi({ [oidc.userinfoUrl]: { sub: 'x', email: 'ada@example.com', given_name: 'Ada', family_name: 'Byron' } });
    expect(await loadProviderProfile(oidc, 'access-token', api)).toEqual({ subject: 'x', email: 'ada@example.com', emailVerified: false, name: 'Ada Byron' });
  });

  it('refuses a userinfo answer that does not say who the user is', async () => {
    const api = providerApi({ [oidc.userinfoUrl]: { email: 'ada@example.com' } });
    await expect(loadProviderProfile(oidc, 'access-token', api)).rejects.toBeInstanceOf(ProfileIncompleteError);
  });

  it('reports a provider that does not answer as unavailable', async () => {
    const api = providerApi({ [oidc.userinfoUrl]: new ProfileUnavailableError('503') });
    await expect(loadProviderProfile(oidc, 'access-token', api)).rejects.toBeInstanceOf(ProfileUnavailableError);
  });

  it('asks GitHub for /user/emails and takes the primary verified address when the profile shows none', async () => {
    const api = providerApi({
      'https://api.github.com/user': { id: 583231, login: 'octocat', name: null, email: null },
      'https://api.github.com/user/emails': [
        { email: 'old@example.com', verified: true, primary: false },
        { email: 'octo@example.com', verified: true, primary: true },
        { email: 'unverified@example.com', verified: false, primary: false },
      ],
    });
    expect(await loadProviderProfile(github, 'access-token', api)).toEqual({ subject: '583231', email: 'octo@example.com', emailVerified: true, name: 'octocat' });
    expect(api.calls).toEqual(['https://api.github.com/user', 'https://api.github.com/user/emails']);
  });

  it('falls back to the public GitHub email, unverified, when /user/emails is not allowed', async () => {
    const api = providerApi({ 'https://api.github.com/user': { id: 7, login: 'octocat', name: 'The Octocat', email: 'public@example.com' } });
    expect(await loadProviderProfile(github, 'access-token', api)).toEqual({ subject: '7', email: 'public@example.com', emailVerified: false, name: 'The Octocat' });
  });

  it('leaves the email empty when GitHub knows no verified or public address', async () => {
    const api = providerApi({ 'https://api.github.com/user': { id: 8, login: 'quiet' }, 'https://api.github.com/user/emails': [{ email: 'x@example.com', verified: false, primary: true }] });
    expect(await loadProviderProfile(github, 'access-token', api)).toEqual({ subject: '8', email: null, emailVerified: false, name: 'quiet' });
  });
});
