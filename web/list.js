import { html } from 'htm/preact';
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { listState, useChecks } from './live.js';
import { cadence, ms, nextPing, pct, statusLabel } from './format.js';
import { Sparkline } from './sparkline.js';
import { BeatBar, BEATS, useBeats } from './beats.js';

const ROW_HEIGHT = 52;
const OVERSCAN = 8;
const STATUSES = ['up', 'degraded', 'down', 'pending', 'paused', 'maintenance'];

function distinct(rows, field) {
  return [...new Set(rows.map((r) => r[field]).filter((v) => v !== null && v !== undefined))].sort();
}

/** Every tag of the check: `key` and `key:value`, lower-cased, so a filter by key finds any value. */
function tagKeys(rows) {
  const all = new Set();
  for (const r of rows) for (const t of r.tags ?? []) {
    const lower = t.toLowerCase();
    all.add(lower);
    if (lower.includes(':')) all.add(lower.slice(0, lower.indexOf(':')));
  }
  return [...all].sort();
}

function hasTag(row, filter) {
  return (row.tags ?? []).some((t) => {
    const lower = t.toLowerCase();
    return lower === filter || (!filter.includes(':') && lower.startsWith(`${filter}:`));
  });
}

function matches(row, f) {
  if (f.status && statusLabel(row) !== f.status) return false;
  if (f.tag && !hasTag(row, f.tag)) return false;
  if (f.type && row.type !== f.type) return false;
  if (f.folder && row.folder !== f.folder) return false;
  if (f.q) {
    const q = f.q.toLowerCase();
    if (!row.name.toLowerCase().includes(q) && !row.url.toLowerCase().includes(q)) return false;
  }
  return true;
}

function countByStatus(rows) {
  const counts = {};
  for (const r of rows) counts[statusLabel(r)] = (counts[statusLabel(r)] ?? 0) + 1;
  return counts;
}

function Row({ row, top }) {
  const label = statusLabel(row);
  return html`<a class="row" role="row" href=${`#/checks/${row.id}`} style=${`top:${top}px`} data-id=${row.id} data-status=${label}>
    <span class=${`dot ${label}`} title=${label}></span>
    <span class="name" role="cell"><strong>${row.name}</strong><small>${row.schedule ? html`<span data-schedule title=${`${cadence(row)}${row.nextExpectedAt ? ` · next ping expected ${nextPing(row.nextExpectedAt)}` : ''}`}>${row.scheduleDescription ?? `cron ${row.schedule}`}</span> · ` : ''}${row.url}</small></span>
    <span class="badge" role="cell" title=${label === 'degraded' ? 'Up, but slower than its “Slow above (ms)”' : null}>${label}</span>
    <span class="type" role="cell">${row.type}${row.folder ? html`<small>${row.folder}</small>` : ''}${row.tags?.length ? html`<small class="tags">${row.tags.map((t) => html`<span class="tag">${t}</span>`)}</small>` : ''}</span>
    <span class="num" role="cell" title="Last response time">${ms(row.lastResponseTime)}</span>
    <span class="num" role="cell" title="Uptime, last 24 hours">${pct(row.uptime24h)}</span>
    <span class="beatcell" role="cell"><${BeatBar} id=${row.id} /></span>
    <span class="sparkcell" role="cell"><${Sparkline} points=${row.sparkline} /></span>
  </a>`;
}

/** The checks list: filters, search and a virtualised body (only the rows in view are in the DOM). */
export function CheckList() {
  const checks = useChecks();
  const [filter, setFilter] = useState({ status: '', type: '', folder: '', tag: '', q: '' });
  const [scrollTop, setScrollTop] = useState(0);
  const [viewport, setViewport] = useState(600);
  const box = useRef(null);
  const types = useMemo(() => distinct(checks, 'type'), [checks.length]);
  const folders = useMemo(() => distinct(checks, 'folder'), [checks.length]);
  const tags = useMemo(() => tagKeys(checks), [checks]);
  // The header counts what the filters show; the status menu what the other filters show.
  const others = checks.filter((r) => matches(r, { ...filter, status: '' }));
  const shown = filter.status ? others.filter((r) => statusLabel(r) === filter.status) : others;
  const menuCounts = countByStatus(others);
  const counts = countByStatus(shown);

  useLayoutEffect(() => {
    const el = box.current;
    if (!el) return;
    const resize = () => setViewport(el.clientHeight);
    resize();
    window.addEventListener('resize', resize);
    return () => window.removeEventListener('resize', resize);
  }, []);
  useEffect(() => {
    if (listState() === 'ready' && box.current) {
      document.body.dataset.listReady = 'true';
      performance.mark('vigil-list-usable');
    }
  });

  const first = Math.max(0, Math.floor(scrollTop / ROW_HEIGHT) - OVERSCAN);
  const last = Math.min(shown.length, Math.ceil((scrollTop + viewport) / ROW_HEIGHT) + OVERSCAN);
  const set = (field) => (e) => setFilter({ ...filter, [field]: e.currentTarget.value });
  const inView = shown.slice(first, last);
  useBeats(inView);

  // j/k and the arrow keys move between rows; the list scrolls so the focused row stays in view.
  const onKey = (e) => {
    const step = e.key === 'ArrowDown' || e.key === 'j' ? 1 : e.key === 'ArrowUp' || e.key === 'k' ? -1 : 0;
    if (!step) return;
    e.preventDefault();
    const current = document.activeElement?.dataset?.id;
    const index = Math.max(-1, shown.findIndex((r) => r.id === current)) + step;
    const target = shown[Math.min(shown.length - 1, Math.max(0, index))];
    if (!target) return;
    const el = box.current;
    const top = shown.indexOf(target) * ROW_HEIGHT;
    if (top < el.scrollTop) el.scrollTop = top;
    else if (top + ROW_HEIGHT > el.scrollTop + el.clientHeight) el.scrollTop = top + ROW_HEIGHT - el.clientHeight;
    requestAnimationFrame(() => el.querySelector(`[data-id="${target.id}"]`)?.focus());
  };

  return html`<section class="list-page">
    <div class="toolbar">
      <input id="search" type="search" placeholder="Search name or URL  ( / )" aria-label="Search checks" value=${filter.q} onInput=${set('q')} />
      <select aria-label="Status" value=${filter.status} onChange=${set('status')}>
        <option value="">All statuses</option>
        ${STATUSES.map((s) => html`<option value=${s}>${s} (${menuCounts[s] ?? 0})</option>`)}
      </select>
      <select aria-label="Type" value=${filter.type} onChange=${set('type')}>
        <option value="">All types</option>
        ${types.map((t) => html`<option value=${t}>${t}</option>`)}
      </select>
      <select aria-label="Folder" value=${filter.folder} onChange=${set('folder')}>
        <option value="">All folders</option>
        ${folders.map((f) => html`<option value=${f}>${f}</option>`)}
      </select>
      ${tags.length ? html`<select aria-label="Tag" value=${filter.tag} onChange=${set('tag')}>
        <option value="">All tags</option>
        ${tags.map((t) => html`<option value=${t}>${t}</option>`)}
      </select>` : ''}
      <a class="button primary" href="#/new">New check</a>
    </div>
    <p class="counts" aria-live="polite">
      ${shown.length} of ${checks.length} checks · <span class="up">${(counts.up ?? 0) + (counts.degraded ?? 0)} up</span>${counts.degraded ? html` (<span class="warn">${counts.degraded} degraded</span>)` : ''} · <span class="down">${counts.down ?? 0} down</span>
    </p>
    <div class="head" role="row" aria-hidden="true"><span></span><span>Name</span><span>Status</span><span>Type</span><span class="num">Response</span><span class="num">24 h</span><span>Last ${BEATS} results</span><span>Trend</span></div>
    <div class="rows" role="table" aria-label="Checks" aria-rowcount=${shown.length} ref=${box} onScroll=${(e) => setScrollTop(e.currentTarget.scrollTop)} onKeyDown=${onKey}>
      <div style=${`height:${shown.length * ROW_HEIGHT}px;position:relative`}>
        ${inView.map((row, i) => html`<${Row} key=${row.id} row=${row} top=${(first + i) * ROW_HEIGHT} />`)}
      </div>
      ${listState() === 'ready' && checks.length === 0 ? html`<p class="empty">No checks yet. <a href="#/new">Create the first one</a>.</p>` : ''}
    </div>
  </section>`;
}
