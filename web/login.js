import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { api } from './api.js';

/** What a WebAuthn failure means to the person (the browser's messages are for developers). */
export function passkeyMessage(err) {
  if (err?.name === 'NotAllowedError') return 'The passkey prompt was closed or timed out.';
  if (err?.name === 'InvalidStateError') return 'This passkey is already registered.';
  return err?.message ?? String(err);
}

function useMethods() {
  const [methods, setMethods] = useState(null);
  useEffect(() => {
    api('GET', '/sessions/methods').then(({ data }) => setMethods(data), () => setMethods({ passkey: false, oidc: null, emailLink: false }));
  }, []);
  return methods;
}

/**
 * The sign-in page: email and password (then the authenticator code when the member has TOTP on),
 * a passkey, the single sign-on provider, an emailed link, or an API key. Every way ends in the
 * same HttpOnly session cookie; nothing secret is kept by the page.
 */
export function Login({ onSignedIn, notice }) {
  const methods = useMethods();
  const [error, setError] = useState(notice ?? null);
  const [info, setInfo] = useState(null);
  const [busy, setBusy] = useState(false);
  const [creds, setCreds] = useState({ email: '', password: '', totp: '' });
  const [needsTotp, setNeedsTotp] = useState(false);
  const [key, setKey] = useState('');
  const set = (field) => (e) => setCreds({ ...creds, [field]: e.currentTarget.value });

  const attempt = (work) => {
    setBusy(true);
    setError(null);
    setInfo(null);
    work().then(
      (result) => result && onSignedIn(result.data),
      (err) => {
        setError(err.message);
        setBusy(false);
      },
    );
  };
  const withPassword = (e) => {
    e.preventDefault();
    const body = { email: creds.email.trim(), password: creds.password, ...(needsTotp ? { totp: creds.totp.trim() } : {}) };
    attempt(() =>
      api('POST', '/sessions', body).catch((err) => {
        // The password was right and the member has TOTP on: ask for the code next.
        if (!needsTotp && err.status === 401 && /\btotp\b/i.test(err.message)) {
          setNeedsTotp(true);
          setBusy(false);
          return null;
        }
        throw err;
      }),
    );
  };
  const withPasskey = () =>
    attempt(() => import('./webauthn.js').then((m) => m.signInWithPasskey()).catch((err) => {
      throw new Error(err.status ? err.message : passkeyMessage(err));
    }));
  const withKey = (e) => {
    e.preventDefault();
    attempt(() => api('POST', '/sessions', { apiKey: key.trim() }));
  };
  const emailLink = () => {
    if (!creds.email.trim()) {
      setError('Type your email address first, then ask for the link.');
      return;
    }
    setBusy(true);
    api('POST', '/sessions/email-link', { email: creds.email.trim() }).then(
      ({ data }) => {
        setInfo(`If ${creds.email.trim()} is a member's address, a sign-in link is on its way; it works once, within ${data.expiresInMinutes} minutes.`);
        setBusy(false);
      },
      (err) => {
        setError(err.message);
        setBusy(false);
      },
    );
  };
  const ret = location.hash.startsWith('#/') ? location.hash : '#/';

  return html`<main class="login">
    <div class="card login-card">
      <h1><span class="logo" aria-hidden="true">◉</span> Vigil</h1>
      ${error ? html`<p class="error" role="alert">${error}</p>` : ''}
      ${info ? html`<p class="notice" role="status">${info}</p>` : ''}
      <form id="password-form" onSubmit=${withPassword}>
        <label class="field"><span>Email</span>
          <input id="email" name="email" type="email" autocomplete="username webauthn" value=${creds.email} onInput=${set('email')} required />
        </label>
        <label class="field"><span>Password</span>
          <input id="password" name="password" type="password" autocomplete="current-password" value=${creds.password} onInput=${set('password')} required />
        </label>
        ${needsTotp ? html`<label class="field"><span>Code from your authenticator app (or a recovery code)</span>
          <input id="totp" name="totp" inputmode="numeric" autocomplete="one-time-code" value=${creds.totp} onInput=${set('totp')} required autofocus />
        </label>` : ''}
        <button class="primary" type="submit" disabled=${busy}>${needsTotp ? 'Verify and sign in' : 'Sign in'}</button>
      </form>
      <div class="login-alternatives">
        ${methods?.passkey && window.PublicKeyCredential ? html`<button type="button" id="passkey-sign-in" onClick=${withPasskey} disabled=${busy}>Sign in with a passkey</button>` : ''}
        ${methods?.oidc ? html`<a class="button" id="sso-sign-in" href=${`${methods.oidc.startUrl}?return=${encodeURIComponent(ret)}`}>Sign in with ${methods.oidc.name}</a>` : ''}
        ${methods?.emailLink ? html`<button type="button" id="email-link" onClick=${emailLink} disabled=${busy}>Email me a sign-in link</button>` : ''}
      </div>
      <section class="login-key">
        <h2 class="small">Or with an API key</h2>
        <form id="api-key-form" onSubmit=${withKey}>
          <p class="muted small">The dashboard then has exactly that key's scopes and checks.</p>
          <label class="field"><span>API key</span>
            <input id="api-key" name="apiKey" type="password" autocomplete="off" placeholder="vigil_live_…" value=${key} onInput=${(e) => setKey(e.currentTarget.value)} required />
          </label>
          <button type="submit" disabled=${busy}>Sign in with the key</button>
          <p class="muted small">No key at hand? On the server, <code>vigil login-link</code> prints a one-time sign-in link.</p>
        </form>
      </section>
    </div>
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

/** An emailed sign-in link carries its one-time token in the fragment too (#email-login=…). */
export function emailLoginTokenInUrl() {
  const m = /^#email-login=([\w-]+)$/.exec(location.hash);
  return m ? m[1] : null;
}

export function redeemEmailLogin(token) {
  history.replaceState(null, '', `${location.pathname}#/`);
  return api('POST', '/sessions/email-link/redeem', { token });
}

/** Single sign-on that did not end in a session comes back with its reason in the fragment. */
export function ssoErrorInUrl() {
  const m = /^#sso-error=(.*)$/.exec(location.hash);
  if (!m) return null;
  history.replaceState(null, '', `${location.pathname}#/`);
  try {
    return decodeURIComponent(m[1]);
  } catch {
    return 'Single sign-on failed';
  }
}
