import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { api } from './api.js';
import { when } from './format.js';

/** Who did what in the account, newest first, with filters (owners and admins). */
export function AuditPage() {
  const [filters, setFilters] = useState({ action: '', actorKind: '' });
  const [rows, setRows] = useState(null);
  const [cursor, setCursor] = useState(null);
  const [error, setError] = useState(null);
  const query = (after) => {
    const q = new URLSearchParams({ limit: '50' });
    if (filters.action.trim()) q.set('action', filters.action.trim());
    if (filters.actorKind) q.set('actorKind', filters.actorKind);
    if (after) q.set('cursor', after);
    return api('GET', `/audit-log?${q}`);
  };
  const load = () => {
    setError(null);
    query(null).then(({ data, meta }) => {
      setRows(data);
      setCursor(meta.cursor);
    }, (err) => setError(err.message));
  };
  const more = () => query(cursor).then(({ data, meta }) => {
    setRows([...rows, ...data]);
    setCursor(meta.cursor);
  }, (err) => setError(err.message));
  useEffect(load, [filters.actorKind]);
  return html`<div class="page audit">
    <h1>Audit log</h1>
    <form class="inline" onSubmit=${(e) => { e.preventDefault(); load(); }}>
      <label class="field"><span>Action</span><input name="action" placeholder="check. or member.role_change" value=${filters.action} onInput=${(e) => setFilters({ ...filters, action: e.currentTarget.value })} /></label>
      <label class="field"><span>Who</span>
        <select name="actorKind" value=${filters.actorKind} onChange=${(e) => setFilters({ ...filters, actorKind: e.currentTarget.value })}>
          <option value="">anyone</option><option value="user">members</option><option value="key">API keys</option>
          <option value="agent">agents</option><option value="cli">the CLI</option><option value="system">Vigil</option>
        </select>
      </label>
      <button type="submit">Filter</button>
    </form>
    ${error ? html`<p class="error" role="alert">${error}</p>` : ''}
    ${rows === null ? html`<p class="muted">Loading…</p>` : rows.length === 0 ? html`<p class="muted">Nothing recorded.</p>` : html`<div class="table-wrap"><table class="audit-log">
      <thead><tr><th>When</th><th>Who</th><th>Did</th><th>To</th><th>Fields</th><th>From</th></tr></thead>
      <tbody>${rows.map((r) => html`<tr key=${r.id} data-action=${r.action}>
        <td>${when(r.at)}</td>
        <td class="actor">${r.actor.name} <small class="muted">${r.actor.kind}</small></td>
        <td><code>${r.action}</code></td>
        <td class="target">${r.target.name ?? r.target.id ?? '—'} <small class="muted">${r.target.kind}</small></td>
        <td>${r.fields.join(', ')}</td>
        <td>${r.address ?? '—'}</td>
      </tr>`)}</tbody></table></div>`}
    ${cursor ? html`<button type="button" onClick=${more}>Older entries</button>` : ''}
  </div>`;
}
