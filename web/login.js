import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { api } from './api.js';

/** Sign-in with an API key; the key is exchanged for a session cookie and never kept by the page. */
export function Login({ onSignedIn, notice }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState(notice ?? null);
  const [busy, setBusy] = useState(false);
  const submit = (e) => {
    e.preventDefault();
    setBusy(true);
    api('POST', '/sessions', { apiKey: key.trim() }).then(
      ({ data }) => onSignedIn(data),
      (err) => {
        setError(err.message);
        setBusy(false);
      },
    );
  };
  return html`<main class="login">
    <form class="card" onSubmit=${submit}>
      <h1><span class="logo" aria-hidden="true">◉</span> Vigil</h1>
      <p class="muted">Sign in with an API key. The dashboard then has exactly that key's scopes and checks.</p>
      ${error ? html`<p class="error" role="alert">${error}</p>` : ''}
      <label class="field"><span>API key</span>
        <input id="api-key" name="apiKey" type="password" autocomplete="current-password" placeholder="vigil_live_…" value=${key} onInput=${(e) => setKey(e.currentTarget.value)} autofocus required />
      </label>
      <button class="primary" type="submit" disabled=${busy}>Sign in</button>
      <p class="muted small">No key at hand? On the server, <code>vigil login-link</code> prints a one-time sign-in link.</p>
    </form>
  </main>`;
}

/** A login link carries its one-time token in the URL fragment (#login=…), which never reaches a server log. */
export function loginTokenInUrl() {
  const m = /^#login=([\w-]+)$/.exec(location.hash);
  return m ? m[1] : null;
}

export function redeemLoginToken(token) {
  history.replaceState(null, '', `${location.pathname}#/`);
  return api('POST', '/sessions', { loginToken: token });
}
