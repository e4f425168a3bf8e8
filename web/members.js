import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { api } from './api.js';
import { when } from './format.js';
import { confirmDialog, CopyButton, Field, toast } from './ui.js';

const ROLES = [
  ['owner', 'Everything, members included'],
  ['admin', 'Everything but owners'],
  ['editor', 'Checks, folders, maintenance, status pages; reads alert settings'],
  ['viewer', 'Reads only'],
];
const RANK = { owner: 4, admin: 3, editor: 2, viewer: 1 };

/** How a member signs in: password, passkeys, TOTP; "invited" until they have set one up. */
function signInText(m) {
  const ways = [];
  if (m.password) ways.push(m.totp ? 'password + TOTP' : 'password');
  if (m.passkeys > 0) ways.push(m.passkeys === 1 ? 'passkey' : `${m.passkeys} passkeys`);
  return ways.length ? ways.join(', ') : null;
}

/** The link of an invitation that could not be emailed: shown until dismissed, to pass on. */
function InviteLink({ invited, onDone }) {
  return html`<section class="card secret" role="status">
    <h2>${invited.email} invited as ${invited.role}</h2>
    <p>Send them this one-time link (valid 24 hours) to choose their password${invited.resent ? '; links sent to them before no longer work' : ''}:</p>
    <p class="ping"><code id="setup-url">${invited.setupUrl}</code> <${CopyButton} text=${invited.setupUrl} /></p>
    <button type="button" onClick=${onDone}>Done</button>
  </section>`;
}

/** Members of the account: invite with a role, change roles, remove (owners and admins). */
export function MembersPage({ myRole, myId }) {
  const [members, setMembers] = useState(null);
  const [draft, setDraft] = useState({ email: '', role: 'viewer' });
  const [error, setError] = useState(null);
  const [invited, setInvited] = useState(null);
  const load = () => api('GET', '/members').then(({ data }) => setMembers(data), (e) => setError(e.message));
  useEffect(() => {
    load();
  }, []);
  const mine = myRole ?? 'admin';
  const grantable = ROLES.filter(([r]) => RANK[r] <= RANK[mine]);
  const invite = (e) => {
    e.preventDefault();
    api('POST', '/members', { email: draft.email.trim(), role: draft.role }).then(({ data }) => {
      setError(null);
      setDraft({ email: '', role: draft.role });
      if (data.invitation === 'emailed') toast(`Invitation emailed to ${data.email}`);
      else setInvited(data);
      load();
    }, (err) => setError(err.message));
  };
  const changeRole = (m, role) =>
    api('PATCH', `/members/${m.id}`, { role }).then(() => (toast(`${m.email} is now ${role}`), load()), (err) => (toast(err.message, 'error'), load()));
  const resend = (m) =>
    api('POST', `/members/${m.id}/setup-link`).then(({ data }) => {
      if (data.invitation === 'emailed') toast(`A new set-up link was emailed to ${data.email}; earlier ones no longer work`);
      else setInvited({ ...data, resent: true });
    }, (err) => toast(err.message, 'error'));
  const owners = (members ?? []).filter((m) => m.role === 'owner').length;
  const remove = (m) =>
    confirmDialog(`Remove ${m.email}?`, 'They are signed out at once and can no longer sign in to this account.', 'Remove')
      .then((yes) => yes && api('DELETE', `/members/${m.id}`).then(() => (toast(`${m.email} removed`), load()), (err) => toast(err.message, 'error')));

  return html`<div class="members-page">
    <h1>Members</h1>
    ${invited ? html`<${InviteLink} invited=${invited} onDone=${() => setInvited(null)} />` : ''}
    ${error ? html`<p class="error" role="alert">${error}</p>` : ''}
    <section class="card">
      ${members === null ? html`<p class="muted">Loading…</p>` : html`<div class="table-wrap"><table class="history members">
        <thead><tr><th>Member</th><th>Role</th><th>Sign-in</th><th>Since</th><th></th></tr></thead>
        <tbody>${members.map((m) => {
          // The only owner keeps the role (the API answers 409): nothing to offer.
          const soleOwner = m.role === 'owner' && owners === 1;
          const manageable = RANK[m.role] <= RANK[mine] && !soleOwner;
          const ways = signInText(m);
          return html`<tr key=${m.id} data-id=${m.id} data-email=${m.email}>
            <td><strong>${m.name ?? m.email}</strong>${m.id === myId ? html` <small class="muted">(you)</small>` : ''}${m.name ? html`<br /><small class="muted">${m.email}</small>` : ''}</td>
            <td>${manageable ? html`<select name="role" aria-label=${`Role of ${m.email}`} value=${m.role} onChange=${(e) => changeRole(m, e.currentTarget.value)}>
                ${grantable.map(([r]) => html`<option value=${r}>${r}</option>`)}
              </select>` : html`${m.role}${soleOwner ? html` <small class="muted">(the only owner)</small>` : ''}`}</td>
            <td>${ways ?? html`<span class="muted">invited</span>${RANK[m.role] <= RANK[mine] ? html` <button type="button" class="link" onClick=${() => resend(m)}>New set-up link</button>` : ''}`}</td>
            <td>${when(m.createdAt)}</td>
            <td>${manageable ? html`<button type="button" class="danger" onClick=${() => remove(m)}>Remove</button>` : ''}</td>
          </tr>`;
        })}</tbody>
      </table></div>`}
    </section>
    <form class="card" onSubmit=${invite}>
      <h2>Invite someone</h2>
      <div class="grid2">
        <${Field} label="Email"><input name="email" type="email" required value=${draft.email} onInput=${(e) => setDraft({ ...draft, email: e.currentTarget.value })} /><//>
        <${Field} label="Role" hint=${ROLES.find(([r]) => r === draft.role)[1]}>
          <select name="role" value=${draft.role} onChange=${(e) => setDraft({ ...draft, role: e.currentTarget.value })}>
            ${grantable.map(([r]) => html`<option value=${r}>${r}</option>`)}
          </select>
        <//>
      </div>
      <div class="actions"><button class="primary" type="submit">Invite</button></div>
    </form>
  </div>`;
}
