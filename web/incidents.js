import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { api } from './api.js';
import { useChecks } from './live.js';
import { confirmDialog, Field, fieldNamed, toast } from './ui.js';

const IMPACTS = ['none', 'minor', 'major', 'critical'];
const STATUSES = ['investigating', 'identified', 'monitoring', 'resolved'];
const label = (s) => s[0].toUpperCase() + s.slice(1);
const when = (iso) => new Date(iso).toLocaleString();
const emptyNew = { title: '', impact: 'minor', status: 'investigating', message: '', checkIds: [] };

/** A status page's incidents: open a new one, post updates to its timeline, resolve, edit, delete. */
export function PageIncidents({ page, canWrite }) {
  const [incidents, setIncidents] = useState(null);
  const [error, setError] = useState(null);
  const base = `/status-pages/${page.id}/incidents`;
  const load = () => api('GET', `${base}?limit=100`).then(({ data }) => setIncidents(data), (e) => setError(e.message));
  useEffect(() => void load(), [page.id]);
  const open = incidents?.filter((i) => i.status !== 'resolved') ?? [];
  const closed = incidents?.filter((i) => i.status === 'resolved') ?? [];
  return html`<section class="card incidents" id="incidents">
    <h2>Incidents</h2>
    ${error ? html`<p class="error" role="alert">${error}</p>` : ''}
    ${canWrite ? html`<${NewIncident} page=${page} base=${base} onDone=${load} />` : ''}
    ${incidents === null ? html`<p class="muted">${error ? '' : 'Loading…'}</p>` : incidents.length === 0 ? html`<p class="muted">No incidents yet.</p>` : ''}
    ${open.map((i) => html`<${IncidentCard} key=${i.id} incident=${i} page=${page} base=${base} canWrite=${canWrite} onDone=${load} />`)}
    ${closed.length ? html`<h3>Resolved</h3>${closed.map((i) => html`<${IncidentCard} key=${i.id} incident=${i} page=${page} base=${base} canWrite=${canWrite} onDone=${load} />`)}` : ''}
  </section>`;
}

function NewIncident({ page, base, onDone }) {
  const names = new Map(useChecks().map((c) => [c.id, c.name]));
  const [form, setForm] = useState(emptyNew);
  const [errors, setErrors] = useState({});
  const [busy, setBusy] = useState(false);
  const set = (field) => (e) => setForm({ ...form, [field]: e.currentTarget.value });
  const toggle = (id) => (e) => setForm({ ...form, checkIds: e.currentTarget.checked ? [...form.checkIds, id] : form.checkIds.filter((x) => x !== id) });
  const submit = (e) => {
    e.preventDefault();
    setBusy(true);
    api('POST', base, { ...form, title: form.title.trim() }).then(
      () => {
        toast('Incident opened');
        setForm(emptyNew);
        setErrors({});
        setBusy(false);
        onDone();
      },
      (err) => {
        setBusy(false);
        setErrors({ [fieldNamed(err.message, ['title', 'impact', 'status', 'message', 'checkIds']) ?? '_']: err.message });
      },
    );
  };
  return html`<details class="new-incident"><summary class="button">Open an incident</summary>
    <form class="incident-form" onSubmit=${submit}>
      ${errors._ ? html`<p class="error" role="alert">${errors._}</p>` : ''}
      <${Field} label="Title" error=${errors.title}><input name="incidentTitle" value=${form.title} onInput=${set('title')} maxlength="200" required /><//>
      <div class="grid2">
        <${Field} label="Impact" error=${errors.impact}><select name="impact" value=${form.impact} onChange=${set('impact')}>${IMPACTS.map((v) => html`<option value=${v}>${label(v)}</option>`)}</select><//>
        <${Field} label="Status" error=${errors.status}><select name="incidentStatus" value=${form.status} onChange=${set('status')}>${STATUSES.map((v) => html`<option value=${v}>${label(v)}</option>`)}</select><//>
      </div>
      <${Field} label="Message" error=${errors.message} hint="Plain text, shown on the page and sent to subscribers">
        <textarea name="message" rows="3" maxlength="5000" value=${form.message} onInput=${set('message')} required></textarea><//>
      ${page.checkIds.length ? html`<fieldset><legend>Affected checks</legend>${page.checkIds.map((id) => html`<label class="check">
        <input type="checkbox" checked=${form.checkIds.includes(id)} onChange=${toggle(id)} /> <span class="break">${names.get(id) ?? id}</span></label>`)}</fieldset>` : ''}
      ${errors.checkIds ? html`<p class="field-error" role="alert">${errors.checkIds}</p>` : ''}
      <div class="actions"><button class="primary" type="submit" disabled=${busy}>Open incident</button></div>
    </form></details>`;
}

function IncidentCard({ incident, base, canWrite, onDone }) {
  const [status, setStatus] = useState(incident.status === 'resolved' ? 'resolved' : incident.status);
  const [message, setMessage] = useState('');
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);
  const post = (e) => {
    e.preventDefault();
    setBusy(true);
    api('POST', `${base}/${incident.id}/updates`, { status, message }).then(
      () => {
        toast(status === 'resolved' && incident.status !== 'resolved' ? 'Incident resolved' : 'Update posted');
        setMessage('');
        setBusy(false);
        onDone();
      },
      (err) => {
        setBusy(false);
        setError(err.message);
      },
    );
  };
  const remove = () =>
    confirmDialog(`Delete ${incident.title}?`, 'It disappears from the page and its feeds. To close it, post a resolved update instead.', 'Delete').then(
      (yes) => yes && api('DELETE', `${base}/${incident.id}`).then(onDone, (err) => toast(err.message, 'error')),
    );
  const statuses = incident.status === 'resolved' ? ['resolved'] : STATUSES;
  return html`<article class="incident" data-incident=${incident.id} data-status=${incident.status}>
    <div class="card-head"><h3>${incident.title}</h3><span class="actions">
      <span class=${`badge impact-${incident.impact}`}>${label(incident.impact)}</span>
      <span class="badge">${label(incident.status)}</span>
      ${incident.automatic ? html`<span class="badge muted" title="Opened by Vigil; resolves itself when the check is up again">automatic</span>` : ''}
      ${canWrite ? html`<button type="button" class="danger small" onClick=${remove}>Delete</button>` : ''}</span></div>
    <ol class="timeline">${[...incident.updates].reverse().map((u) => html`<li><strong>${label(u.status)}</strong> <span class="muted">${when(u.at)}</span><p class="pre">${u.message}</p></li>`)}</ol>
    ${canWrite ? html`<form class="incident-update" onSubmit=${post}>
      ${error ? html`<p class="error" role="alert">${error}</p>` : ''}
      <div class="grid2">
        <select name="updateStatus" value=${status} onChange=${(e) => setStatus(e.currentTarget.value)}>${statuses.map((v) => html`<option value=${v}>${label(v)}</option>`)}</select>
        <textarea name="updateMessage" rows="2" maxlength="5000" placeholder=${incident.status === 'resolved' ? 'Add a note' : 'What is new?'} value=${message} onInput=${(e) => setMessage(e.currentTarget.value)} required></textarea>
      </div>
      <div class="actions"><button type="submit" disabled=${busy}>Post update</button></div>
    </form>` : ''}
  </article>`;
}
