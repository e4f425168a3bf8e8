import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { api } from './api.js';

/** An invitation's set-up link carries its one-time token in the fragment (#setup=…). */
export function setupTokenInUrl() {
  const m = /^#setup=([\w-]+)$/.exec(location.hash);
  return m ? m[1] : null;
}

/** The invited member chooses a password; the link is used up and they are signed in. */
export function SetupPassword({ token, onSignedIn }) {
  const [password, setPassword] = useState('');
  const [again, setAgain] = useState('');
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);
  const submit = (e) => {
    e.preventDefault();
    if (password !== again) return setError('The two passwords differ.');
    setBusy(true);
    api('POST', '/password-setup', { token, password }).then(
      ({ data }) => {
        history.replaceState(null, '', `${location.pathname}#/`);
        onSignedIn(data);
      },
      (err) => {
        setError(err.message);
        setBusy(false);
      },
    );
  };
  return html`<main class="login">
    <form class="card" onSubmit=${submit}>
      <h1><span class="logo" aria-hidden="true">◉</span> Vigil</h1>
      <p class="muted">Choose the password you will sign in with (at least 10 characters).</p>
      ${error ? html`<p class="error" role="alert">${error}</p>` : ''}
      <label class="field"><span>New password</span>
        <input id="new-password" name="password" type="password" autocomplete="new-password" minlength="10" value=${password} onInput=${(e) => setPassword(e.currentTarget.value)} autofocus required />
      </label>
      <label class="field"><span>Once more</span>
        <input id="new-password-again" name="again" type="password" autocomplete="new-password" minlength="10" value=${again} onInput=${(e) => setAgain(e.currentTarget.value)} required />
      </label>
      <button class="primary" type="submit" disabled=${busy}>Set password and sign in</button>
    </form>
  </main>`;
}
