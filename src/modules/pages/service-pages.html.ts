/**
 * The two pages a browser meets at the service's root: what the service is (with the API reference,
 * the OpenAPI document and the settings page), and where the brokerage portal sends it back. Plain
 * HTML, no script, every value escaped; nothing of a user's without a credential (see portal-return.ts).
 */

const STYLE =
  'body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;color:#1f2933}' +
  'h1{font-size:1.5rem}a{color:#1a56db}code{background:#f1f5f9;padding:0 .25rem;border-radius:3px}.muted{color:#52606d}';

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[character] as string);
}

function page(title: string, body: string): string {
  return `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" content="noindex"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body>${body}</body></html>\n`;
}

/** `/`: what the service is, and where its reference is. */
export function rootPage(): string {
  return page(
    'Ledgerline',
    '<h1>Ledgerline</h1>' +
      '<p>A personal-finance HTTP/JSON API: accounts (bank, credit card, investment, loan), transactions across all of them, balance history, ' +
      'spending, recurring streams and brokerage holdings, for one signed-in user. Every operation lives under <code>/v1</code> and needs an API key ' +
      '(<code>Authorization: Bearer pf_live_…</code>) or a signed-in browser session.</p>' +
      '<ul><li><a href="/v1/docs">API reference</a></li><li><a href="/v1/openapi.json">OpenAPI 3.1 document</a> (<code>/v1/openapi.json</code>)</li>' +
      '<li><a href="/settings">Settings</a>: sign in to issue and revoke your API keys</li></ul>',
  );
}

export interface BrokerageReturn {
  readonly connected: boolean;
  /** Shown only to the browser that went through the portal; null: not that browser (or nothing to show). */
  readonly accountNames: readonly string[] | null;
}

/** Where the brokerage portal sends the browser back: connected or not, and what to do next. */
export function brokerageReturnPage({ connected, accountNames }: BrokerageReturn): string {
  const title = connected ? 'Brokerage connected' : 'Brokerage not connected';
  const outcome = connected
    ? '<p>Your brokerage is connected. Its accounts, holdings and history appear in Ledgerline as the first sync completes.</p>'
    : '<p>The connection to your brokerage did not complete, and nothing was connected. Start again from the app.</p>';
  const accounts =
    connected && accountNames !== null && accountNames.length > 0
      ? `<p>Accounts connected:</p><ul>${accountNames.map((name) => `<li>${escapeHtml(name)}</li>`).join('')}</ul>`
      : '';
  return page(title, `<h1>${title}</h1>${outcome}${accounts}<p class="muted">You can close this window.</p>`);
}
