import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { api } from './api.js';
import { confirmDialog, toast } from './ui.js';

/** "3 email · 1 webhook · 2 waiting for confirmation" from the list's counts. */
export function countsText(meta) {
  const parts = [`${meta.email} email`, `${meta.webhook} webhook`];
  if (meta.pending) parts.push(`${meta.pending} waiting for confirmation`);
  return parts.join(' · ');
}

/** The count shown on the status pages list. */
export function SubscriberCount({ pageId }) {
  const [meta, setMeta] = useState(null);
  useEffect(() => void api('GET', `/status-pages/${pageId}/subscribers?limit=1`).then(({ meta }) => setMeta(meta), () => {}), [pageId]);
  if (!meta) return '';
  const total = meta.email + meta.webhook;
  return html` · <span class="subscribers-count" title=${countsText(meta)}>${total} subscriber${total === 1 ? '' : 's'}</span>`;
}

/** A page's subscribers: the counts, each address (webhooks as scheme and host), and a way to remove one. */
export function PageSubscribers({ page, canWrite }) {
  const [list, setList] = useState(null);
  const [error, setError] = useState(null);
  const load = () => api('GET', `/status-pages/${page.id}/subscribers?limit=100`).then(setList, (e) => setError(e.message));
  useEffect(() => void load(), [page.id]);
  const remove = (s) =>
    confirmDialog(`Remove ${s.address}?`, 'It receives nothing more from this page.', 'Remove').then(
      (yes) => yes && api('DELETE', `/status-pages/${page.id}/subscribers/${s.id}`).then(load, (err) => toast(err.message, 'error')),
    );
  return html`<section class="card subscribers" id="subscribers">
    <h2>Subscribers</h2>
    ${error ? html`<p class="error" role="alert">${error}</p>` : ''}
    ${list === null ? html`<p class="muted">${error ? '' : 'Loading…'}</p>` : html`
      <p class="muted" id="subscriber-counts">${countsText(list.meta)}</p>
      ${list.data.length ? html`<ul class="incidents">${list.data.map((s) => html`<li data-subscriber=${s.id}>
        <span class="break">${s.address}</span> <span class="badge">${s.kind}</span>${s.confirmed ? '' : html` <span class="badge muted">unconfirmed</span>`}
        ${canWrite ? html` <button type="button" class="danger small" onClick=${() => remove(s)}>Remove</button>` : ''}</li>`)}</ul>`
        : html`<p class="muted">Visitors subscribe with the form at the foot of the public page.</p>`}`}
  </section>`;
}
