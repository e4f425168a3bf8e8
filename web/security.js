import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { api } from './api.js';
import { ago, when } from './format.js';
import { passkeyMessage } from './login.js';
import { confirmDialog, toast } from './ui.js';

function PasskeyRow({ p, onChanged }) {
  const rename = () => {
    const name = prompt('A new name for this passkey', p.name);
    if (!name || name.trim() === p.name) return;
    api('PATCH', `/passkeys/${p.id}`, { name: name.trim() }).then(onChanged, (err) => toast(err.message, 'error'));
  };
  const remove = async () => {
    if (!(await confirmDialog(`Remove “${p.name}”?`, 'It will no longer sign you in. The authenticator may keep its copy; remove it there too.', 'Remove'))) return;
    api('DELETE', `/passkeys/${p.id}`).then(onChanged, (err) => toast(err.message, 'error'));
  };
  return html`<tr data-id=${p.id}>
    <td><strong class="passkey-name">${p.name}</strong>${p.backedUp ? html` <small class="muted">synced</small>` : ''}</td>
    <td>${when(p.createdAt)}</td>
    <td>${ago(p.lastUsedAt)}</td>
    <td class="actions"><button type="button" onClick=${rename}>Rename</button> <button type="button" class="danger" onClick=${remove}>Remove</button></td>
  </tr>`;
}

/** The member's passkeys: add one (this device or a security key), rename, remove. */
function Passkeys() {
  const [list, setList] = useState(null);
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState(null);
  const load = () => api('GET', '/passkeys').then(({ data }) => setList(data), (err) => setError(err.message));
  useEffect(() => void load(), []);
  const add = (e) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    import('./webauthn.js')
      .then((m) => m.registerPasskey(name.trim()))
      .then(
        ({ data }) => {
          toast(`Passkey “${data.name}” added`);
          setName('');
          setBusy(false);
          load();
        },
        (err) => {
          setError(err.status ? err.message : passkeyMessage(err));
          setBusy(false);
        },
      );
  };
  return html`<section class="card" id="passkeys">
    <h2>Passkeys</h2>
    <p class="muted small">Sign in with your device's screen lock or a security key instead of a password. Passkeys are bound to this server's address: if it changes, register them again.</p>
    ${error ? html`<p class="error" role="alert">${error}</p>` : ''}
    ${list === null ? html`<p class="muted">Loading…</p>`
      : list.length === 0 ? html`<p class="muted" id="no-passkeys">No passkey yet.</p>`
      : html`<div class="table-wrap"><table class="passkeys">
          <thead><tr><th>Name</th><th>Added</th><th>Last used</th><th></th></tr></thead>
          <tbody>${list.map((p) => html`<${PasskeyRow} key=${p.id} p=${p} onChanged=${load} />`)}</tbody>
        </table></div>`}
    <form class="inline" id="add-passkey" onSubmit=${add}>
      <label class="field"><span>Name</span>
        <input name="passkeyName" value=${name} onInput=${(e) => setName(e.currentTarget.value)} placeholder="e.g. work laptop" maxlength="100" required />
      </label>
      <button type="submit" class="primary" disabled=${busy}>Add a passkey</button>
    </form>
  </section>`;
}

/** What a link through the provider came back with (`#/security/linked`, `#/security/link-error=…`), read once. */
function linkOutcome() {
  const m = /^#\/security\/(linked|link-error=(.*))$/.exec(location.hash);
  if (!m) return null;
  history.replaceState(null, '', `${location.pathname}#/security`);
  if (m[1] === 'linked') return { ok: true };
  try {
    return { ok: false, message: decodeURIComponent(m[2]) };
  } catch {
    return { ok: false, message: 'The account was not linked' };
  }
}

/**
 * The member's accounts at the single sign-on provider: single sign-on finds them by these (the
 * provider's issuer and subject), never by the email it sends. Hidden when there is neither an
 * identity nor a provider.
 */
function Identities() {
  const [list, setList] = useState(null);
  const [provider, setProvider] = useState(null);
  const [error, setError] = useState(null);
  const load = () => api('GET', '/me/identities').then(({ data }) => setList(data), (err) => toast(err.message, 'error'));
  useEffect(() => {
    const outcome = linkOutcome();
    if (outcome?.ok) toast('Single sign-on account linked');
    else if (outcome) setError(outcome.message);
    load();
    api('GET', '/sessions/methods').then(({ data }) => setProvider(data.oidc), () => setProvider(null));
  }, []);
  const link = () => {
    setError(null);
    api('POST', '/me/identities/link').then(({ data }) => location.assign(data.location), (err) => setError(err.message));
  };
  const remove = async (i) => {
    const text = 'Single sign-on will no longer find you by this account. Its next sign-in may link you again if the provider vouches for your address.';
    if (!(await confirmDialog('Unlink this single sign-on account?', text, 'Unlink'))) return;
    api('DELETE', `/me/identities/${i.id}`).then(() => {
      toast('Single sign-on account unlinked');
      load();
    }, (err) => toast(err.message, 'error'));
  };
  if (list === null || (list.length === 0 && !provider)) return '';
  return html`<section class="card" id="identities">
    <h2>Single sign-on</h2>
    <p class="muted small">Your account at the identity provider${provider ? html` (${provider.name})` : ''} signs you in, whatever address it has now.</p>
    ${error ? html`<p class="error" role="alert" id="link-error">${error}</p>` : ''}
    ${list.length === 0 ? html`<p class="muted" id="no-identities">Not linked yet: your first single sign-on links it when the provider vouches for your address, or link it now.</p>
        ${provider ? html`<button type="button" id="link-identity" onClick=${link}>Link your ${provider.name} account</button>` : ''}`
      : html`<div class="table-wrap"><table class="identities">
          <thead><tr><th>Provider</th><th>Address there</th><th>Linked</th><th>Last used</th><th></th></tr></thead>
          <tbody>${list.map((i) => html`<tr key=${i.id} data-id=${i.id}>
            <td><code class="identity-issuer">${i.issuer}</code></td>
            <td>${i.email ?? '—'}</td>
            <td>${when(i.createdAt)}</td>
            <td>${ago(i.lastUsedAt)}</td>
            <td class="actions"><button type="button" class="danger" onClick=${() => remove(i)}>Unlink</button></td>
          </tr>`)}</tbody>
        </table></div>`}
  </section>`;
}

/** Two-factor sign-in: enrol with the QR code, confirm with a code, keep the ten recovery codes. */
function Totp() {
  const [status, setStatus] = useState(null);
  const [enrolment, setEnrolment] = useState(null);
  const [codes, setCodes] = useState(null);
  const [code, setCode] = useState('');
  const [error, setError] = useState(null);
  const load = () => api('GET', '/me/totp').then(({ data }) => setStatus(data), (err) => setError(err.message));
  useEffect(() => void load(), []);
  const fail = (err) => setError(err.message);
  const begin = () => {
    setError(null);
    api('POST', '/me/totp').then(({ data }) => setEnrolment(data), fail);
  };
  const confirm = (e) => {
    e.preventDefault();
    setError(null);
    api('POST', '/me/totp/confirm', { code: code.trim() }).then(({ data }) => {
      setCodes(data.recoveryCodes);
      setEnrolment(null);
      setCode('');
      load();
    }, fail);
  };
  const disable = (e) => {
    e.preventDefault();
    setError(null);
    api('POST', '/me/totp/disable', { code: code.trim() }).then(() => {
      setCode('');
      toast('Two-factor sign-in is off');
      load();
    }, fail);
  };
  return html`<section class="card" id="totp">
    <h2>Two-factor sign-in (TOTP)</h2>
    ${error ? html`<p class="error" role="alert">${error}</p>` : ''}
    ${codes ? html`<div class="secret" id="recovery-codes" role="status">
        <p><strong>Your recovery codes, shown this once.</strong> Each signs you in once when your authenticator is not at hand. Keep them somewhere safe.</p>
        <ul class="codes">${codes.map((c) => html`<li><code>${c}</code></li>`)}</ul>
        <button type="button" onClick=${() => setCodes(null)}>I have kept them</button>
      </div>` : ''}
    ${status === null ? html`<p class="muted">Loading…</p>`
      : status.enabled ? html`<p id="totp-on">On. ${status.recoveryCodesLeft} recovery code${status.recoveryCodesLeft === 1 ? '' : 's'} left.</p>
        <form class="inline" onSubmit=${disable}>
          <label class="field"><span>A current code, to turn it off</span><input name="totpOff" inputmode="numeric" autocomplete="one-time-code" value=${code} onInput=${(e) => setCode(e.currentTarget.value)} required /></label>
          <button type="submit" class="danger">Turn off</button>
        </form>`
      : enrolment ? html`<div id="totp-enrol">
          <p>Scan this with your authenticator app (or type the key), then enter the code it shows.</p>
          <img class="qr" src=${enrolment.qr} alt="QR code of the TOTP secret" width="200" height="200" />
          <p class="small">Key: <code id="totp-secret">${enrolment.secret}</code></p>
          <form class="inline" onSubmit=${confirm}>
            <label class="field"><span>Code</span><input name="totpCode" inputmode="numeric" autocomplete="one-time-code" value=${code} onInput=${(e) => setCode(e.currentTarget.value)} required /></label>
            <button type="submit" class="primary">Turn on</button>
          </form>
        </div>`
      : html`<p class="muted">Off. With it on, signing in with your password also asks for a code from an authenticator app.</p>
        <button type="button" id="totp-begin" onClick=${begin}>Set up two-factor sign-in</button>`}
  </section>`;
}

function Password() {
  const [form, setForm] = useState({ currentPassword: '', newPassword: '' });
  const [error, setError] = useState(null);
  const save = (e) => {
    e.preventDefault();
    setError(null);
    const body = { newPassword: form.newPassword, ...(form.currentPassword ? { currentPassword: form.currentPassword } : {}) };
    api('POST', '/me/password', body).then(() => {
      setForm({ currentPassword: '', newPassword: '' });
      toast('Password saved');
    }, (err) => setError(err.message));
  };
  const set = (f) => (e) => setForm({ ...form, [f]: e.currentTarget.value });
  return html`<section class="card" id="password">
    <h2>Password</h2>
    ${error ? html`<p class="error" role="alert">${error}</p>` : ''}
    <form class="inline" onSubmit=${save}>
      <label class="field"><span>Current password (if you have one)</span><input type="password" name="currentPassword" autocomplete="current-password" value=${form.currentPassword} onInput=${set('currentPassword')} /></label>
      <label class="field"><span>New password</span><input type="password" name="newPassword" autocomplete="new-password" value=${form.newPassword} onInput=${set('newPassword')} required /></label>
      <button type="submit">Save password</button>
    </form>
  </section>`;
}

/** The member's sessions: where and how each was opened; any but this one can be ended. */
function Sessions({ userId }) {
  const [list, setList] = useState(null);
  const load = () => api('GET', `/sessions?userId=${encodeURIComponent(userId)}`).then(({ data }) => setList(data), (err) => toast(err.message, 'error'));
  useEffect(() => void load(), []);
  const end = (s) => api('DELETE', `/sessions/${s.id}`).then(load, (err) => toast(err.message, 'error'));
  return html`<section class="card" id="sessions">
    <h2>Your sessions</h2>
    ${list === null ? html`<p class="muted">Loading…</p>` : html`<div class="table-wrap"><table class="sessions">
      <thead><tr><th>Signed in</th><th>How</th><th>From</th><th>Until</th><th></th></tr></thead>
      <tbody>${list.map((s) => html`<tr key=${s.id} data-id=${s.id}>
        <td>${when(s.createdAt)}${s.current ? html` <small class="badge" data-status="up">this one</small>` : ''}</td>
        <td>${(s.method ?? '—').replace('_', ' ')}</td>
        <td>${s.address ?? '—'}<br /><small class="muted">${(s.userAgent ?? '').slice(0, 60)}</small></td>
        <td>${when(s.expiresAt)}</td>
        <td>${s.current ? '' : html`<button type="button" class="danger" onClick=${() => end(s)}>End</button>`}</td>
      </tr>`)}</tbody></table></div>`}
  </section>`;
}

/** The signed-in member's own security settings. */
export function SecurityPage({ user }) {
  return html`<div class="page security">
    <h1>Security</h1>
    <p class="muted">${user.email} · ${user.role}</p>
    <${Passkeys} />
    <${Identities} />
    <${Totp} />
    <${Password} />
    <${Sessions} userId=${user.id} />
  </div>`;
}
