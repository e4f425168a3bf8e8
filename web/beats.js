import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { api } from './api.js';
import { ms } from './format.js';

// Beat bars: each list row's latest results as coloured ticks, newest on the right. Only the rows
// in view are asked for, in one request (GET /checks/beats, up to 100 ids); a row is read again
// when a pushed change says it has a newer result, and the rows in view every 30 s while the
// page is visible (results that change no status are not pushed).
export const BEATS = 30;
const BATCH = 100;
const REFRESH_MS = 30_000;
const DEBOUNCE_MS = 120;

const cache = new Map();
const listeners = new Set();
let version = 0;

function changed() {
  version++;
  for (const l of listeners) l(version);
}

async function load(ids) {
  for (let i = 0; i < ids.length; i += BATCH) {
    const chunk = ids.slice(i, i + BATCH);
    const { data } = await api('GET', `/checks/beats?ids=${chunk.map(encodeURIComponent).join(',')}&limit=${BEATS}`);
    const found = new Map(data.map((b) => [b.id, b]));
    for (const id of chunk) cache.set(id, found.get(id) ?? { id, at: [], status: [], responseTime: [] });
  }
  changed();
}

/** Whether the cached beats miss the row's latest result (or were never read). */
function stale(row) {
  const beats = cache.get(row.id);
  if (!beats) return true;
  const newest = beats.at[beats.at.length - 1] ?? 0;
  return row.lastChecked !== null && Date.parse(row.lastChecked) > newest;
}

/** Keeps the beats of `rows` (the rows in view) loaded and fresh; re-renders when they arrive. */
export function useBeats(rows) {
  const [, setVersion] = useState(version);
  useEffect(() => {
    listeners.add(setVersion);
    return () => listeners.delete(setVersion);
  }, []);
  const wanted = rows.filter(stale).map((r) => r.id).join(',');
  useEffect(() => {
    if (!wanted) return;
    const timer = setTimeout(() => load(wanted.split(',')).catch(() => {}), DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [wanted]);
  const inView = rows.map((r) => r.id).join(',');
  useEffect(() => {
    if (!inView) return;
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') load(inView.split(',')).catch(() => {});
    }, REFRESH_MS);
    return () => clearInterval(timer);
  }, [inView]);
}

export function BeatBar({ id }) {
  const beats = cache.get(id);
  if (!beats) return html`<span class="beats" aria-hidden="true"></span>`;
  const n = beats.at.length;
  const up = beats.status.filter((s) => s === 'up').length;
  const label = n === 0 ? 'No results yet' : `Last ${n} results: ${up} up, ${n - up} down`;
  const pad = Array.from({ length: BEATS - n }, (_, i) => html`<span key=${`pad${i}`} class="tick none"></span>`);
  return html`<span class="beats" role="img" aria-label=${label} data-count=${n}>${pad}${beats.at.map(
    (at, i) => html`<span key=${i} class=${`tick ${beats.status[i]}`} title=${`${new Date(at).toLocaleString()} · ${beats.status[i]}${beats.responseTime[i] === null ? '' : ` · ${ms(beats.responseTime[i])}`}`}></span>`,
  )}</span>`;
}
