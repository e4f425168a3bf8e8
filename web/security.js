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

/** The signed-in member's own security settings. */
export function SecurityPage() {
  return html`<div class="page security">
    <h1>Security</h1>
    <${Passkeys} />
  </div>`;
}
