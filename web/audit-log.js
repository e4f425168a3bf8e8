import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { api } from './api.js';
import { when } from './format.js';

const KINDS = ['', 'user', 'key', 'agent', 'cli', 'system'];

/** Who changed what, newest first, with filters; "Older" follows the cursor. */
export function AuditLogPage() {
  const [filters, setFilters] = useState({ action: '', actorKind: '', target: '' });
  const [entries, setEntries] = useState(null);
  const [cursor, setCursor] = useState(null);
  const [error, setError] = useState(null);
  const query = (after) => {
    const q = new URLSearchParams({ limit: '50' });
    for (const [k, v] of Object.entries(filters)) if (v.trim()) q.set(k, v.trim());
    if (after) q.set('cursor', after);
    return `/audit-log?${q}`;
  };
  const load = (after = null) =>
    api('GET', query(after)).then(({ data, meta }) => {
      setError(null);
      setEntries((shown) => (after ? [...(shown ?? []), ...data] : data));
      setCursor(meta.cursor);
    }, (err) => setError(err.message));
  useEffect(() => {
    load();
  }, []);
  const submit = (e) => {
    e.preventDefault();
    load();
  };
  const set = (k) => (e) => setFilters({ ...filters, [k]: e.currentTarget.value });
  return html`<div class="audit-page">
    <h1>Audit log</h1>
    <form class="card filters" onSubmit=${submit}>
      <label class="field"><span>Action</span><input name="action" placeholder="check. or member.role_change" value=${filters.action} onInput=${set('action')} /></label>
      <label class="field"><span>Who</span><select name="actorKind" value=${filters.actorKind} onChange=${set('actorKind')}>
        ${KINDS.map((k) => html`<option value=${k}>${k || 'anyone'}</option>`)}
      </select></label>
      <label class="field"><span>Target id</span><input name="target" placeholder="chk_…" value=${filters.target} onInput=${set('target')} /></label>
      <div class="actions"><button type="submit">Filter</button></div>
    </form>
    ${error ? html`<p class="error" role="alert">${error}</p>` : ''}
    <section class="card">
      ${entries === null ? html`<p class="muted">Loading…</p>` : entries.length === 0 ? html`<p class="muted">Nothing recorded${Object.values(filters).some((v) => v) ? ' that matches' : ''}.</p>` : html`<div class="table-wrap"><table class="history audit">
        <thead><tr><th>When</th><th>Who</th><th>Did</th><th>To</th><th>Fields</th><th>From</th></tr></thead>
        <tbody>${entries.map((e) => html`<tr key=${e.id} data-action=${e.action}>
          <td>${when(e.at)}</td>
          <td><strong>${e.actor.name}</strong><br /><small class="muted">${e.actor.kind}</small></td>
          <td><code>${e.action}</code></td>
          <td>${e.target.name ?? e.target.id ?? '—'}${e.target.name && e.target.id ? html`<br /><small class="muted">${e.target.id}</small>` : ''}</td>
          <td>${e.fields.join(', ') || '—'}</td>
          <td>${e.address ?? '—'}</td>
        </tr>`)}</tbody>
      </table></div>`}
      ${cursor ? html`<div class="actions"><button type="button" onClick=${() => load(cursor)}>Older</button></div>` : ''}
    </section>
  </div>`;
}
