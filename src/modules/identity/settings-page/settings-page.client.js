/**
 * The settings page in the browser. It calls the API as any web app does: the session cookie goes
 * along by itself, and the browser's Origin header is what the API's cross-site check reads. Every
 * value from the API enters the page as text (textContent, append), never as markup; the page's
 * Content-Security-Policy refuses HTML strings anyway (Trusted Types).
 */

function byId(id) {
  const element = document.getElementById(id);
  if (!element) throw new Error(`The page has no #${id}.`);
  return element;
}

const errorBox = byId('error');

function showError(message) {
  errorBox.textContent = message;
  errorBox.hidden = message === '';
}

class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

/** A sentence from any of the API's error bodies. */
function messageOf(status, body) {
  if (status === 401) return 'Your session has ended: reload the page to sign in again.';
  const issues = body?.error?.issues;
  if (Array.isArray(issues) && issues.length > 0) return issues.map((issue) => String(issue.message)).join(' ');
  const text = typeof body?.error === 'string' ? body.error : body?.error?.message;
  return typeof text === 'string' ? text : `The service answered ${status}.`;
}

/** The answer's JSON body, or an ApiError saying why not. */
async function call(method, path, body) {
  const headers = body === undefined ? { Accept: 'application/json' } : { Accept: 'application/json', 'Content-Type': 'application/json' };
  const response = await fetch(path, { method, credentials: 'same-origin', headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const json = await response.json().catch(() => null);
  if (!response.ok) throw new ApiError(response.status, messageOf(response.status, json));
  return json;
}

function signedOut() {
  const callbackURL = document.body.dataset.callbackUrl;
  for (const button of document.querySelectorAll('button[data-provider]')) {
    button.addEventListener('click', async () => {
      button.disabled = true;
      showError('');
      try {
        const { url } = await call('POST', '/api/auth/sign-in/social', { provider: button.dataset.provider, callbackURL });
        const consent = new URL(url);
        if (consent.protocol !== 'https:' && consent.protocol !== 'http:') throw new Error('The sign-in did not give a web address to go to.');
        location.assign(consent.href);
      } catch (error) {
        showError(error.message);
        button.disabled = false;
      }
    });
  }
}

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

function time(iso, absent) {
  if (iso === null) return absent;
  const element = document.createElement('time');
  element.setAttribute('datetime', iso);
  element.textContent = dateFormat.format(new Date(iso));
  return element;
}

function cell(content) {
  const td = document.createElement('td');
  td.append(content);
  return td;
}

function code(text) {
  const element = document.createElement('code');
  element.textContent = text;
  return element;
}

function signedIn() {
  const table = byId('keys');
  const status = byId('keys-status');
  const dialog = byId('revoke-dialog');
  const form = byId('create-form');
  const created = byId('created');
  const createdKey = byId('created-key');
  const copyStatus = byId('copy-status');
  let revoking = null;

  function row(key) {
    const revoke = document.createElement('button');
    revoke.type = 'button';
    revoke.className = 'danger';
    revoke.textContent = 'Revoke';
    revoke.setAttribute('aria-label', `Revoke ${key.name}`);
    revoke.addEventListener('click', () => {
      revoking = key;
      byId('revoke-name').textContent = key.name;
      dialog.showModal();
    });
    const tr = document.createElement('tr');
    tr.dataset.keyId = key.id;
    tr.append(cell(key.name), cell(code(`${key.prefix}…`)), cell(key.scopes.join(', ')), cell(time(key.lastUsedAt, 'Never')), cell(time(key.createdAt, '')), cell(revoke));
    return tr;
  }

  async function loadKeys(note = '') {
    try {
      const { apiKeys } = await call('GET', '/v1/api-keys');
      table.tBodies[0].replaceChildren(...apiKeys.map(row));
      table.hidden = apiKeys.length === 0;
      const count = apiKeys.length === 0 ? 'You have no API keys.' : `${apiKeys.length} key${apiKeys.length === 1 ? '' : 's'}.`;
      status.textContent = note === '' ? count : `${note} ${count}`;
    } catch (error) {
      status.textContent = '';
      showError(error.message);
    }
  }

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const name = form.elements.namedItem('name').value.trim();
    const scopes = [...form.querySelectorAll('input[name="scopes"]:checked')].map((box) => box.value);
    if (name === '') return showError('Give the key a name (up to 100 characters).');
    if (scopes.length === 0) return showError('Choose at least one scope.');
    const submit = form.querySelector('button[type="submit"]');
    submit.disabled = true;
    try {
      const key = await call('POST', '/v1/api-keys', { name, scopes });
      showError('');
      form.reset();
      byId('created-name').textContent = `“${key.name}”`;
      createdKey.value = key.key;
      copyStatus.textContent = '';
      created.hidden = false;
      createdKey.focus();
      createdKey.select();
      await loadKeys();
    } catch (error) {
      showError(error.message);
    } finally {
      submit.disabled = false;
    }
  });

  byId('copy').addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(createdKey.value);
      copyStatus.textContent = 'Copied to the clipboard.';
    } catch {
      createdKey.select();
      copyStatus.textContent = 'Select the key and copy it (Ctrl+C or ⌘C).';
    }
  });

  // The key leaves the page once the user has it: nothing keeps the secret after this.
  byId('created-done').addEventListener('click', () => {
    createdKey.value = '';
    created.hidden = true;
  });

  byId('revoke-cancel').addEventListener('click', () => dialog.close());
  byId('revoke-confirm').addEventListener('click', async () => {
    const key = revoking;
    dialog.close();
    if (key === null) return;
    try {
      await call('DELETE', `/v1/api-keys/${encodeURIComponent(key.id)}`);
      showError('');
      await loadKeys(`Revoked “${key.name}”.`);
    } catch (error) {
      // 404: revoked already (another tab, the command line): the list catches up either way.
      if (error.status !== 404) showError(error.message);
      await loadKeys();
    }
  });

  byId('sign-out').addEventListener('click', async () => {
    try {
      await call('POST', '/api/auth/sign-out');
      location.assign('/settings');
    } catch (error) {
      showError(error.message);
    }
  });

  return loadKeys();
}

if (document.body.dataset.page === 'signed-in') void signedIn();
else signedOut();
