import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { api } from './api.js';
import { when } from './format.js';
import { confirmDialog, CopyButton, toast } from './ui.js';

const ROLES = [
  ['owner', 'Everything, members included'],
  ['admin', 'Everything but owners and deleting the account'],
  ['editor', 'Checks, folders, tags, maintenance, status pages; reads alert settings'],
  ['viewer', 'Reads only'],
];
const RANK = { owner: 4, admin: 3, editor: 2, viewer: 1 };

/** Members of the account: invite with a role, change roles, remove (owners and admins). */
export function MembersPage({ user }) {
  const [list, setList] = useState(null);
  const [error, setError] = useState(null);
  const [draft, setDraft] = useState({ email: '', role: 'viewer' });
  const [invited, setInvited] = useState(null);
  const load = () => api('GET', '/members').then(({ data }) => setList(data), (err) => setError(err.message));
  useEffect(() => void load(), []);
  const mine = user ? RANK[user.role] : RANK.admin;
  const roles = ROLES.filter(([r]) => RANK[r] <= mine);
  const invite = (e) => {
    e.preventDefault();
    setError(null);
    api('POST', '/members', { email: draft.email.trim(), role: draft.role }).then(({ data }) => {
      setInvited(data);
      setDraft({ email: '', role: draft.role });
      load();
    }, (err) => setError(err.message));
  };
  const changeRole = (m, role) => api('PATCH', `/members/${m.id}`, { role }).then(() => {
    toast(`${m.email} is now ${role}`);
    load();
  }, (err) => {
    toast(err.message, 'error');
    load();
  });
  const remove = async (m) => {
    if (!(await confirmDialog(`Remove ${m.email}?`, 'Their sessions end at once; they can no longer sign in.', 'Remove'))) return;
    api('DELETE', `/members/${m.id}`).then(load, (err) => toast(err.message, 'error'));
  };
  return html`<div class="page members">
    <h1>Members</h1>
    ${error ? html`<p class="error" role="alert">${error}</p>` : ''}
    ${invited ? html`<section class="card secret" role="status" id="invited">
      <h2>${invited.email} is invited as ${invited.role}</h2>
      ${invited.invitation === 'emailed'
        ? html`<p>The set-up link went to them by email; it works once, within 24 hours.</p>`
        : html`<p>Pass them this one-time link (24 hours) where they set their password:</p>
          <p class="ping"><code id="setup-url">${invited.setupUrl}</code> <${CopyButton} text=${invited.setupUrl} /></p>`}
      <button type="button" onClick=${() => setInvited(null)}>Done</button>
    </section>` : ''}
    <form class="card inline" id="invite" onSubmit=${invite}>
      <label class="field"><span>Email</span><input type="email" name="email" value=${draft.email} onInput=${(e) => setDraft({ ...draft, email: e.currentTarget.value })} required /></label>
      <label class="field"><span>Role</span>
        <select name="role" value=${draft.role} onChange=${(e) => setDraft({ ...draft, role: e.currentTarget.value })}>
          ${roles.map(([r, what]) => html`<option value=${r} title=${what}>${r}</option>`)}
        </select>
      </label>
      <button type="submit" class="primary">Invite</button>
    </form>
    ${list === null ? html`<p class="muted">Loading…</p>` : html`<div class="table-wrap"><table class="members-table">
      <thead><tr><th>Member</th><th>Role</th><th>Sign-in</th><th>Since</th><th></th></tr></thead>
      <tbody>${list.map((m) => html`<tr key=${m.id} data-id=${m.id} data-email=${m.email}>
        <td><strong>${m.name ?? m.email}</strong>${m.name ? html`<br /><small class="muted">${m.email}</small>` : ''}${user && m.id === user.id ? html` <small class="muted">(you)</small>` : ''}</td>
        <td><select name="memberRole" aria-label=${`Role of ${m.email}`} value=${m.role} onChange=${(e) => changeRole(m, e.currentTarget.value)} disabled=${RANK[m.role] > mine}>
          ${ROLES.map(([r]) => html`<option value=${r} disabled=${RANK[r] > mine}>${r}</option>`)}
        </select></td>
        <td>${m.password ? 'password' : html`<span class="muted">invited</span>`}${m.totp ? ' + TOTP' : ''}</td>
        <td>${when(m.createdAt)}</td>
        <td>${user && m.id === user.id ? '' : html`<button type="button" class="danger" onClick=${() => remove(m)} disabled=${RANK[m.role] > mine}>Remove</button>`}</td>
      </tr>`)}</tbody></table></div>`}
    <details class="muted small"><summary>What each role may do</summary><ul>${ROLES.map(([r, what]) => html`<li><strong>${r}</strong>: ${what}</li>`)}</ul></details>
  </div>`;
}
