import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { api } from './api.js';
import { checkRow } from './live.js';
import { toast } from './ui.js';

const STATUSES = ['', 'pending', 'delivered', 'failed', 'cancelled'];
const stamp = (ms) => (ms === null ? '—' : new Date(ms).toLocaleString());

/** GET /alerts/deliveries, newest first, filtered by status and webhook, a page at a time. */
export function DeliveryLog({ hooks, webhookId, onWebhook, canRetry }) {
  const [status, setStatus] = useState('');
  const [rows, setRows] = useState(null);
  const [cursor, setCursor] = useState(null);
  const [error, setError] = useState(null);
  const query = (after) => {
    const q = new URLSearchParams({ limit: '25' });
    if (status) q.set('status', status);
    if (webhookId) q.set('webhookId', webhookId);
    if (after) q.set('cursor', after);
    return `/alerts/deliveries?${q}`;
  };
  const load = (after = null) =>
    api('GET', query(after)).then(
      ({ data, meta }) => {
        setRows((prev) => (after ? [...prev, ...data] : data));
        setCursor(meta.cursor);
        setError(null);
      },
      (e) => setError(e.message),
    );
  useEffect(() => void load(), [status, webhookId]);
  const retry = (d) => api('POST', `/alerts/deliveries/${d.id}/retry`).then(() => (toast('Queued again'), load()), (e) => toast(e.message, 'error'));
  const hookName = (id) => hooks?.find((h) => h.id === id)?.name ?? id;

  return html`<section class="card deliveries">
    <header class="card-head">
      <h2>Delivery log</h2>
      <div class="filters">
        <select aria-label="Delivery status" value=${status} onChange=${(e) => setStatus(e.currentTarget.value)}>
          ${STATUSES.map((s) => html`<option value=${s}>${s || 'Any status'}</option>`)}
        </select>
        <select aria-label="Delivery target" value=${webhookId} onChange=${(e) => onWebhook(e.currentTarget.value)}>
          <option value="">Every target</option>
          ${(hooks ?? []).map((h) => html`<option value=${h.id}>${h.name}</option>`)}
        </select>
        <button type="button" onClick=${() => load()}>Refresh</button>
      </div>
    </header>
    ${error ? html`<p class="error">${error}</p>` : ''}
    ${rows === null && !error ? html`<p class="muted">Loading…</p>` : ''}
    ${rows?.length === 0 ? html`<p class="muted">No deliveries${status || webhookId ? ' match' : ' yet'}.</p>` : ''}
    ${rows?.length
      ? html`<div class="table-wrap"><table class="history">
          <thead><tr><th>When</th><th>Event</th><th>Check</th><th>Target</th><th>Status</th><th class="num">Attempts</th><th>Last answer</th><th></th></tr></thead>
          <tbody>${rows.map(
            (d) => html`<tr data-status=${d.status}>
              <td>${stamp(d.createdAt)}</td>
              <td>${d.event}${d.reminder ? html` <small class="muted">(reminder)</small>` : ''}</td>
              <td><a href=${`#/checks/${d.checkId}`}>${checkRow(d.checkId)?.name ?? d.checkId}</a></td>
              <td title=${d.target}>${d.channel === 'webhook' ? hookName(d.webhookId) : d.target}</td>
              <td><span class=${`dot ${d.status === 'delivered' ? 'up' : d.status === 'failed' ? 'down' : 'pending'}`}></span>${d.status}${d.nextAttemptAt ? html` <small class="muted">next ${stamp(d.nextAttemptAt)}</small>` : ''}</td>
              <td class="num">${d.attempts}</td>
              <td class="err">${d.lastStatus ?? ''} ${d.lastError ?? ''}</td>
              <td>${d.status === 'failed' && canRetry ? html`<button type="button" onClick=${() => retry(d)}>Retry</button>` : ''}</td>
            </tr>`,
          )}</tbody>
        </table></div>`
      : ''}
    ${cursor ? html`<div class="actions"><button type="button" onClick=${() => load(cursor)}>Older deliveries</button></div>` : ''}
  </section>`;
}
