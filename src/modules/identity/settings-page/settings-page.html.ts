import { escapeHtml } from '../../pages/service-pages.html.js';
import { SIGN_IN_FAILURES, type SignInFailure } from '../sign-in/sign-in.service.js';

/**
 * The settings page's HTML. What is the user's own (their keys) the page's script reads from
 * `/v1/api-keys` with the session cookie; the HTML carries only who is signed in, escaped. The one
 * script and the one style carry the response's nonce: nothing else runs or styles (decision 0048).
 */

export const SETTINGS_SCRIPT_PATH = '/settings/settings.js';

const STYLE =
  'body{font:16px/1.5 system-ui,sans-serif;max-width:56rem;margin:2.5rem auto;padding:0 1rem;color:#1f2933}' +
  'h1{font-size:1.5rem;margin-bottom:.25rem}h2{font-size:1.15rem;margin-top:2rem}code{background:#f1f5f9;padding:0 .25rem;border-radius:3px}' +
  '.muted{color:#52606d}.error{color:#b91c1c}table{border-collapse:collapse;width:100%}' +
  'th,td{text-align:left;padding:.4rem .5rem;border-bottom:1px solid #e4e7eb;vertical-align:top}th{font-weight:600;font-size:.9rem;color:#52606d}td code,td time{white-space:nowrap}' +
  'button{font:inherit;padding:.3rem .8rem;border:1px solid #9aa5b1;border-radius:4px;background:#fff;cursor:pointer}' +
  'button.primary{background:#1a56db;border-color:#1a56db;color:#fff}button.danger{border-color:#b91c1c;color:#b91c1c}' +
  'button.link{border:0;padding:0;background:none;color:#1a56db;text-decoration:underline}' +
  'label{display:block;margin:.35rem 0}input[type=text]{font:inherit;padding:.3rem .5rem;width:20rem;max-width:100%}' +
  'fieldset{border:1px solid #e4e7eb;border-radius:4px;margin:.75rem 0}' +
  '.created{border:1px solid #16a34a;background:#f0fdf4;border-radius:6px;padding:0 1rem 1rem}' +
  '.secret{display:flex;gap:.5rem}.secret input{flex:1;font:14px ui-monospace,monospace;padding:.3rem .5rem}' +
  'dialog{border:1px solid #9aa5b1;border-radius:6px;max-width:28rem}dialog .actions{display:flex;gap:.5rem;justify-content:flex-end}' +
  '.providers{list-style:none;padding:0}.providers li{margin:.5rem 0}';

const PROVIDER_LABELS: Readonly<Record<string, string>> = { google: 'Google', github: 'GitHub' };

function page(nonce: string, variant: 'signed-in' | 'signed-out', attributes: string, body: string): string {
  return (
    '<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" content="noindex">' +
    `<title>Settings · Ledgerline</title><style nonce="${nonce}">${STYLE}</style>` +
    `<script type="module" src="${SETTINGS_SCRIPT_PATH}" nonce="${nonce}"></script></head>` +
    `<body data-page="${variant}"${attributes}><h1>Settings</h1>${body}</body></html>\n`
  );
}

export interface SignedInPage {
  readonly nonce: string;
  readonly user: { readonly email: string | null; readonly name: string | null };
}

/** The user's keys (listed, issued and revoked by the script through /v1/api-keys) and signing out. */
export function signedInPage({ nonce, user }: SignedInPage): string {
  const who = user.email ?? user.name;
  return page(
    nonce,
    'signed-in',
    '',
    `<p class="muted">Signed in${who === null ? '' : ` as <strong>${escapeHtml(who)}</strong>`} · <button type="button" id="sign-out" class="link">Sign out</button></p>` +
      '<noscript><p class="error">This page needs JavaScript to list, create and revoke keys.</p></noscript>' +
      '<p id="error" role="alert" class="error" hidden></p>' +
      '<section aria-labelledby="keys-heading"><h2 id="keys-heading">API keys</h2>' +
      '<p class="muted">A key lets a script or another server use the API as you (<code>Authorization: Bearer pf_live_…</code>). Revoking one stops it at once.</p>' +
      '<p id="keys-status" role="status" class="muted">Loading your keys…</p>' +
      '<table id="keys" hidden><thead><tr><th scope="col">Name</th><th scope="col">Prefix</th><th scope="col">Scopes</th><th scope="col">Last used</th><th scope="col">Created</th><th scope="col" aria-label="Actions"></th></tr></thead><tbody></tbody></table></section>' +
      '<section id="created" class="created" hidden><h2>Your new key <span id="created-name"></span></h2>' +
      '<p>Copy it now: it is shown this once, and Ledgerline keeps only its hash.</p>' +
      '<div class="secret"><input type="text" id="created-key" readonly aria-label="The new API key" spellcheck="false"><button type="button" id="copy" class="primary">Copy</button></div>' +
      '<p id="copy-status" role="status" class="muted"></p><button type="button" id="created-done">Done</button></section>' +
      '<section aria-labelledby="create-heading"><h2 id="create-heading">Create a key</h2><form id="create-form" novalidate>' +
      '<label for="key-name">Name</label><input type="text" id="key-name" name="name" required maxlength="100" autocomplete="off" placeholder="Budget spreadsheet">' +
      '<fieldset><legend>Scopes</legend>' +
      '<label><input type="checkbox" name="scopes" value="read" checked> <code>read</code>: see accounts, transactions and everything else</label>' +
      '<label><input type="checkbox" name="scopes" value="write" checked> <code>write</code>: change them</label>' +
      '<label><input type="checkbox" name="scopes" value="keys"> <code>keys</code>: issue, list and revoke keys</label></fieldset>' +
      '<button type="submit" class="primary">Create key</button></form></section>' +
      '<dialog id="revoke-dialog" aria-labelledby="revoke-question"><p id="revoke-question">Revoke <strong id="revoke-name"></strong>? Anything using it is refused (401) from its next request.</p>' +
      '<div class="actions"><button type="button" id="revoke-cancel">Cancel</button><button type="button" id="revoke-confirm" class="danger">Revoke key</button></div></dialog>',
  );
}

export interface SignedOutPage {
  readonly nonce: string;
  /** The configured sign-in providers, by the name clients send. */
  readonly providers: readonly string[];
  /** Where the sign-in brings the browser back: this page, on the service's public origin. */
  readonly callbackURL: string;
  /** The `error` the sign-in callback added on the way back, if any (anything the callback does not send reads as a generic failure). */
  readonly failure: string | null;
}

/** A button per configured provider (the script begins the sign-in), or how to get a key without one. */
export function signedOutPage({ nonce, providers, callbackURL, failure }: SignedOutPage): string {
  const failed = failure === null ? '' : `<p role="alert" class="error">The sign-in did not complete. ${escapeHtml(failureSentence(failure))}</p>`;
  const choices =
    providers.length === 0
      ? '<p>No sign-in provider is configured on this service (<code>OAUTH_&lt;NAME&gt;_*</code>). An operator can issue a key on the command line: <code>npx ledgerline api-keys create --email you@example.com</code>.</p>'
      : '<noscript><p class="error">Signing in needs JavaScript.</p></noscript><ul class="providers">' +
        providers.map((provider) => `<li><button type="button" class="primary" data-provider="${escapeHtml(provider)}">Sign in with ${escapeHtml(PROVIDER_LABELS[provider] ?? provider)}</button></li>`).join('') +
        '</ul>';
  return page(
    nonce,
    'signed-out',
    ` data-callback-url="${escapeHtml(callbackURL)}"`,
    `<p>Sign in to list, create and revoke your API keys.</p>${failed}<p id="error" role="alert" class="error" hidden></p>${choices}`,
  );
}

function failureSentence(failure: string): string {
  return Object.hasOwn(SIGN_IN_FAILURES, failure) ? SIGN_IN_FAILURES[failure as SignInFailure] : 'Start again.';
}
