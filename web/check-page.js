import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { api } from './api.js';
import { ResponseChart, UptimeBars } from './chart.js';
import { checkRow, useChecks } from './live.js';
import { ago, cadence, duration, ms, nextPing, pct, statusLabel, when } from './format.js';
import { confirmDialog, CopyButton, toast } from './ui.js';

function Ssl({ ssl }) {
  if (!ssl || ssl.validTo === null) return html`<p class="muted">No certificate seen.</p>`;
  const days = Math.floor((Date.parse(ssl.validTo) - Date.now()) / 86_400_000);
  return html`<dl class="facts">
    <dt>Valid</dt><dd class=${ssl.valid ? 'up' : 'down'}>${ssl.valid ? 'yes' : `no${ssl.error ? ` (${ssl.error})` : ''}`}</dd>
    <dt>Expires</dt><dd class=${days < 14 ? 'down' : ''}>${when(ssl.validTo)} (${days} days)</dd>
    <dt>Issuer</dt><dd>${ssl.issuer ?? '—'}</dd>
  </dl>`;
}

function Domain({ domain }) {
  if (!domain?.expiresAt) return html`<p class="muted">${domain?.name ? `${domain.name}: expiry not known yet.` : 'Not tracked for this check.'}</p>`;
  const days = Math.floor((Date.parse(domain.expiresAt) - Date.now()) / 86_400_000);
  return html`<dl class="facts">
    <dt>Domain</dt><dd>${domain.name}</dd>
    <dt>Expires</dt><dd class=${days < 30 ? 'down' : ''}>${when(domain.expiresAt)} (${days} days)</dd>
    <dt>Registrar</dt><dd>${domain.registrar ?? '—'}</dd>
  </dl>`;
}

function History({ entries, heartbeat }) {
  if (!entries) return html`<p class="muted">Loading…</p>`;
  if (entries.length === 0) return html`<p class="muted">${heartbeat ? 'No pings yet.' : 'No results yet.'}</p>`;
  return html`<div class="table-wrap"><table class="history">
    <thead><tr><th>When</th><th>Kind</th><th>Status</th><th>Code</th><th class="num">Time</th><th>Error / response</th></tr></thead>
    <tbody>${entries.map(
      (e) => html`<tr data-kind=${e.type}>
        <td title=${e.createdAt}>${ago(e.createdAt)}</td>
        <td>${e.type}${e.details?.central ? html`<span class="muted" title="the central that recorded it"> · ${e.details.central}</span>` : ''}</td>
        <td><span class=${`dot ${e.status}`}></span>${e.status}</td>
        <td>${e.statusCode ?? ''}</td>
        <td class="num">${e.responseTime === null ? '' : ms(e.responseTime)}</td>
        <td class="err">${e.error ?? ''}${e.snippet ? html`<pre class="snippet">${e.snippet}</pre>` : ''}${e.details?.reason ?? ''}</td>
      </tr>`,
    )}</tbody>
  </table></div>`;
}

function Incidents({ incidents }) {
  if (!incidents) return null;
  if (incidents.length === 0) return html`<p class="muted">No downtime in the last 90 days.</p>`;
  return html`<ul class="incidents">${incidents.slice(0, 20).map(
    (i) => html`<li><span class="dot down"></span>${when(i.start)} · ${i.end ? `down ${duration(i.durationMs)}` : html`<strong>ongoing, ${duration(i.durationMs)}</strong>`}${i.error ? html` · <span class="err">${i.error}</span>` : ''}</li>`,
  )}</ul>`;
}

/** One check: status, actions, chart, uptime bars, incidents, SSL and domain, history or ping log. */
export function CheckPage({ id, scopes, who }) {
  const all = useChecks(); // re-render on pushed changes
  const names = new Map(all.map((c) => [c.id, c.name]));
  const row = checkRow(id);
  const [check, setCheck] = useState(null);
  const [history, setHistory] = useState(null);
  const [days, setDays] = useState(null);
  const [error, setError] = useState(null);
  const [pingUrl, setPingUrl] = useState(null);
  const pushed = row ? `${row.status}|${row.lastChecked}|${row.maintenance}|${row.degraded}` : '';

  const reload = () => {
    api('GET', `/checks/${id}`).then(({ data }) => setCheck(data), (err) => setError(err.message));
    api('GET', `/checks/${id}/history?limit=25`).then(({ data }) => setHistory(data), () => {});
    api('GET', `/checks/${id}/series?range=90d`).then(({ data }) => setDays(data), () => {});
  };
  useEffect(reload, [id, pushed]);

  if (error) return html`<section class="card"><p class="error">${error}</p><a href="#/">Back to the list</a></section>`;
  if (!check) return html`<p class="muted">Loading…</p>`;
  const can = (scope) => scopes.includes(scope);
  // `degraded` as the status endpoint says it: up, but slower than "Slow above (ms)".
  const label = check.maintenanceMode ? 'maintenance' : check.status === 'up' && row?.degraded ? 'degraded' : check.status;
  const act = (promise, done) =>
    promise.then(
      (r) => {
        done?.(r);
        reload();
      },
      (err) => toast(err.message, 'error'),
    );
  // The reason says where and by whom: left out, the API records "Disabled via API".
  const toggle = () => {
    const reason = `${check.disabled ? 'Resumed' : 'Paused'} from the dashboard by ${who}`;
    act(api('POST', `/checks/${id}/toggle`, { disabled: !check.disabled, reason }), () => toast(check.disabled ? 'Resumed' : 'Paused'));
  };
  const maintenance = () => act(api('POST', `/checks/${id}/maintenance`, { enabled: !check.maintenanceMode }));
  const regenerate = () =>
    confirmDialog('Regenerate the ping URL?', 'The old URL stops working at once; update your job to the new one.', 'Regenerate').then(
      (yes) => yes && act(api('POST', `/checks/${id}/regenerate-token`), (r) => setPingUrl(r.data.pingUrl)),
    );
  const remove = () =>
    confirmDialog(`Delete ${check.name}?`, 'Its history and statistics are deleted too. This cannot be undone.', 'Delete').then(
      (yes) => yes && api('DELETE', `/checks/${id}`).then(() => (location.hash = '#/'), (err) => toast(err.message, 'error')),
    );
  const url = pingUrl ?? check.url;

  return html`<article class="check-page">
    <header class="page-head">
      <div>
        <a href="#/" class="muted">← Checks</a>
        <h1><span class=${`dot ${label}`}></span>${check.name}</h1>
        <p class="muted break" data-cadence>${check.type} · ${cadence(check)}${check.responseTimeLimit ? ` · slow above ${check.responseTimeLimit} ms` : ''} · ${url}</p>
        ${check.nextExpectedAt ? html`<p class="muted" data-next-ping>Next ping expected ${nextPing(check.nextExpectedAt)}</p>` : ''}
        ${check.tags?.length ? html`<p class="tags">${check.tags.map((t) => html`<span class="tag">${t}</span>`)}</p>` : ''}
        ${check.blockedBy?.length ? html`<p class="warn" data-blocked-by>Blocked by ${check.blockedBy.map((b, i) => html`${i ? ', ' : ''}<a href=${`#/checks/${b}`}>${names.get(b) ?? b}</a>`)}: its alerts wait until that is up again</p>` : ''}
        ${check.dependsOn?.length && !check.blockedBy?.length ? html`<p class="muted">Depends on ${check.dependsOn.map((b) => names.get(b) ?? b).join(', ')}</p>` : ''}
      </div>
      <div class="actions">
        ${can('checks:write') ? html`<a class="button" href=${`#/checks/${id}/edit`}>Edit</a>
          <button type="button" onClick=${toggle}>${check.disabled ? 'Resume' : 'Pause'}</button>
          <button type="button" onClick=${maintenance}>${check.maintenanceMode ? 'End maintenance' : 'Maintenance'}</button>` : ''}
        ${can('checks:delete') ? html`<button type="button" class="danger" onClick=${remove}>Delete</button>` : ''}
      </div>
    </header>
    <section class="stats">
      <div><span class="badge big" data-status=${label}>${label}</span><small>${check.disabled ? check.disabledReason ?? 'paused' : label === 'degraded' ? `slower than ${check.responseTimeLimit} ms` : 'status'}</small></div>
      <div><strong>${ms(check.lastResponseTime)}</strong><small>last response</small></div>
      <div><strong>${pct(row?.uptime24h)}</strong><small>uptime 24 h</small></div>
      <div><strong title=${check.lastProbe?.at ?? check.lastChecked ?? ''}>${ago(check.lastProbe?.at ?? check.lastChecked)}</strong><small>${check.type === 'heartbeat' ? 'last ping' : 'last checked'}</small></div>
    </section>
    ${check.lastError ? html`<p class="error">${check.lastError}</p>` : ''}
    ${check.type === 'heartbeat'
      ? html`<section class="card"><h2>Ping URL</h2><p class="ping"><code>${url}</code> <${CopyButton} text=${url} />
          ${can('checks:write') ? html`<button type="button" onClick=${regenerate}>Regenerate</button>` : ''}</p>
          <p class="muted">Send GET or POST to it when the job runs; add <code>/start</code>, <code>/fail</code> or <code>${'/<exit code>'}</code> to report more.</p></section>`
      : html`<${ResponseChart} checkId=${id} refreshKey=${pushed} />`}
    <section class="card"><h2>Uptime, last 90 days</h2><${UptimeBars} series=${days} /></section>
    <div class="grid2">
      <section class="card"><h2>Incidents</h2><${Incidents} incidents=${days?.incidents} /></section>
      <section class="card"><h2>Certificate</h2><${Ssl} ssl=${check.ssl} /><h2>Domain</h2><${Domain} domain=${check.domain} /></section>
    </div>
    <section class="card"><h2>${check.type === 'heartbeat' ? 'Ping log' : 'Recent results'}</h2><${History} entries=${history} heartbeat=${check.type === 'heartbeat'} /></section>
  </article>`;
}
