import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { api } from './api.js';
import { CheckPicker } from './check-picker.js';
import { allChecks } from './live.js';
import { when } from './format.js';
import { confirmDialog, CopyButton, Field, fieldNamed, toast } from './ui.js';

const SCOPES = [
  ['checks:read', 'Read checks, history and statistics'],
  ['checks:write', 'Create, edit, pause checks; status pages'],
  ['checks:delete', 'Delete checks'],
  ['alerts:read', 'Read alert settings (unrestricted keys only)'],
  ['alerts:write', 'Change alert settings (unrestricted keys only)'],
];
const FIELDS = ['name', 'scopes', 'checkIds', 'folders', 'expiresAt'];
const draftOf = () => ({ name: '', scopes: ['checks:read'], restrict: false, checkIds: [], folders: [], expiresAt: '' });

function Restriction({ draft, setDraft, errors }) {
  const folders = [...new Set(allChecks().map((c) => c.folder).filter(Boolean))].sort();
  const flip = (f) => setDraft({ ...draft, folders: draft.folders.includes(f) ? draft.folders.filter((x) => x !== f) : [...draft.folders, f] });
  return html`<div class="restriction">
    <p class="muted small">The key sees and changes only these checks, and the checks in these folders (either is enough).</p>
    ${errors.checkIds ? html`<p class="field-error" role="alert">${errors.checkIds}</p>` : ''}
    <${CheckPicker} legend="Checks" value=${draft.checkIds} onChange=${(checkIds) => setDraft({ ...draft, checkIds })} />
    <fieldset class="folders"><legend>Folders</legend>
      ${errors.folders ? html`<p class="field-error" role="alert">${errors.folders}</p>` : ''}
      ${folders.length === 0 ? html`<p class="muted small">No check has a folder yet.</p>` : folders.map(
        (f) => html`<label class="check"><input type="checkbox" name="folder" value=${f} checked=${draft.folders.includes(f)} onChange=${() => flip(f)} /> ${f}</label>`,
      )}
    </fieldset>
  </div>`;
}

/** The secret of a key just created: shown this once, with a copy button, until dismissed. */
function NewSecret({ created, onDone }) {
  return html`<section class="card secret" role="status">
    <h2>Key “${created.name ?? created.id}” created</h2>
    <p>Copy it now: <strong>this is the only time it is shown.</strong> Vigil keeps only a hash of it.</p>
    <p class="ping"><code id="new-key">${created.key}</code> <${CopyButton} text=${created.key} /></p>
    <button type="button" onClick=${onDone}>I have copied it</button>
  </section>`;
}

function KeyRow({ k, onRevoke }) {
  const access = k.access ? [
    k.access.checkIds.length ? `${k.access.checkIds.length} check${k.access.checkIds.length === 1 ? '' : 's'}` : '',
    k.access.folders.length ? `folders ${k.access.folders.join(', ')}` : '',
  ].filter(Boolean).join(' + ') : 'all checks';
  return html`<tr data-id=${k.id} data-status=${k.status}>
    <td><strong>${k.name ?? '—'}</strong>${k.current ? html` <small class="muted">(this session’s key)</small>` : ''}<br /><small class="muted">${k.id}</small></td>
    <td>${k.scopes.join(', ')}</td>
    <td>${access}</td>
    <td><span class="badge" data-status=${k.status === 'active' ? 'up' : 'down'}>${k.status}</span></td>
    <td>${when(k.createdAt)}</td>
    <td>${k.expiresAt ? when(k.expiresAt) : 'never'}</td>
    <td>${k.status === 'revoked' ? '' : html`<button type="button" class="danger" onClick=${() => onRevoke(k)}>Revoke</button>`}</td>
  </tr>`;
}

/** API keys of the account: create with scopes, a restriction and an expiry; revoke. */
export function KeysPage({ scopes, restricted }) {
  const [keys, setKeys] = useState(null);
  const [draft, setDraft] = useState(draftOf);
  const [errors, setErrors] = useState({});
  const [created, setCreated] = useState(null);
  const [showRevoked, setShowRevoked] = useState(false);
  const full = !restricted && SCOPES.every(([s]) => scopes.includes(s));
  const load = () => api('GET', '/keys').then(({ data }) => setKeys(data), (e) => setErrors({ _: e.message }));
  useEffect(() => {
    if (full) load();
  }, []);
  if (!full) {
    return html`<section class="card"><h1>API keys</h1><p class="muted">Managing keys needs a sign-in with every scope and no restriction
      (the admin key, or a login link from <code>vigil login-link</code>), so no key can make one stronger than itself.</p></section>`;
  }
  const flipScope = (s) => setDraft({ ...draft, scopes: draft.scopes.includes(s) ? draft.scopes.filter((x) => x !== s) : [...draft.scopes, s] });
  const create = (e) => {
    e.preventDefault();
    const body = { scopes: draft.scopes };
    if (draft.name.trim()) body.name = draft.name.trim();
    if (draft.restrict) {
      if (draft.checkIds.length === 0 && draft.folders.length === 0) return setErrors({ checkIds: 'Choose at least one check or folder, or untick “Restrict”.' });
      if (draft.checkIds.length) body.checkIds = draft.checkIds;
      if (draft.folders.length) body.folders = draft.folders;
    }
    if (draft.expiresAt) body.expiresAt = new Date(draft.expiresAt).toISOString();
    api('POST', '/keys', body).then(
      ({ data }) => {
        setCreated(data);
        setDraft(draftOf());
        setErrors({});
        load();
      },
      (err) => setErrors({ [fieldNamed(err.message, FIELDS) ?? (/expires/i.test(err.message) ? 'expiresAt' : '_')]: err.message }),
    );
  };
  const revoke = (k) =>
    confirmDialog(
      `Revoke ${k.name ?? k.id}?`,
      k.current ? 'This is the key you signed in with: this session ends at once too. Revocation is final.' : 'Requests with it are refused at once. Revocation is final.',
      'Revoke',
    ).then((yes) => yes && api('DELETE', `/keys/${k.id}`).then(() => (toast('Key revoked'), load()), (err) => toast(err.message, 'error')));
  const shown = (keys ?? []).filter((k) => showRevoked || k.status !== 'revoked');
  const revokedCount = (keys ?? []).length - (keys ?? []).filter((k) => k.status !== 'revoked').length;

  return html`<div class="keys-page">
    <h1>API keys</h1>
    ${created ? html`<${NewSecret} created=${created} onDone=${() => setCreated(null)} />` : ''}
    ${errors._ ? html`<p class="error" role="alert">${errors._}</p>` : ''}
    <section class="card">
      ${keys === null ? html`<p class="muted">Loading…</p>` : html`<div class="table-wrap"><table class="history keys">
        <thead><tr><th>Name</th><th>Scopes</th><th>Checks</th><th>Status</th><th>Created</th><th>Expires</th><th></th></tr></thead>
        <tbody>${shown.map((k) => html`<${KeyRow} key=${k.id} k=${k} onRevoke=${revoke} />`)}</tbody>
      </table></div>
      ${revokedCount > 0 ? html`<label class="check small"><input type="checkbox" checked=${showRevoked} onChange=${(e) => setShowRevoked(e.currentTarget.checked)} /> Show ${revokedCount} revoked</label>` : ''}`}
    </section>
    <form class="card" onSubmit=${create}>
      <h2>Create a key</h2>
      <div class="grid2">
        <${Field} label="Name" error=${errors.name} hint="To tell keys apart, e.g. “CI deploys”"><input name="name" maxlength="100" value=${draft.name} onInput=${(e) => setDraft({ ...draft, name: e.currentTarget.value })} /><//>
        <${Field} label="Expires" error=${errors.expiresAt} hint="Optional: the key stops working then"><input name="expiresAt" type="datetime-local" value=${draft.expiresAt} onInput=${(e) => setDraft({ ...draft, expiresAt: e.currentTarget.value })} /><//>
      </div>
      <fieldset class="events"><legend>Scopes</legend>
        ${errors.scopes ? html`<p class="field-error" role="alert">${errors.scopes}</p>` : ''}
        ${SCOPES.map(([s, what]) => html`<label class="check" title=${what}><input type="checkbox" name="scope" value=${s} checked=${draft.scopes.includes(s)} onChange=${() => flipScope(s)} /> ${s}</label>`)}
      </fieldset>
      <label class="check"><input type="checkbox" name="restrict" checked=${draft.restrict} onChange=${(e) => setDraft({ ...draft, restrict: e.currentTarget.checked })} /> Restrict to some checks or folders</label>
      ${draft.restrict ? html`<${Restriction} draft=${draft} setDraft=${setDraft} errors=${errors} />` : ''}
      <div class="actions"><button class="primary" type="submit">Create key</button></div>
    </form>
  </div>`;
}
