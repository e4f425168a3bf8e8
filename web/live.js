import { useEffect, useState } from 'preact/hooks';
import { api } from './api.js';

// Every check's summary row, loaded once and then kept current by the server's pushed
// changes (GET /v1/public/live): no polling.
const rows = new Map();
let order = [];
let version = 0;
let state = 'idle';
let source = null;
const listeners = new Set();

function changed() {
  version++;
  for (const l of listeners) l(version);
}

export async function loadChecks() {
  state = 'loading';
  changed();
  const { data } = await api('GET', '/checks/summary');
  rows.clear();
  for (const row of data) rows.set(row.id, row);
  order = data.map((r) => r.id);
  state = 'ready';
  changed();
}

export function connectLive(onSignedOut) {
  disconnectLive();
  source = new EventSource('/v1/public/live');
  source.addEventListener('check', (e) => {
    const row = JSON.parse(e.data);
    if (!rows.has(row.id)) order = [...order, row.id];
    rows.set(row.id, row);
    document.body.dataset.lastEvent = row.id + ':' + row.status;
    changed();
  });
  source.addEventListener('removed', (e) => {
    const { id } = JSON.parse(e.data);
    rows.delete(id);
    order = order.filter((x) => x !== id);
    changed();
  });
  source.addEventListener('signed-out', () => {
    disconnectLive();
    onSignedOut();
  });
  let opened = 0;
  source.addEventListener('hello', () => {
    document.body.dataset.live = 'open';
    // A reconnect may have missed changes: read the list again once.
    if (opened++ > 0) loadChecks().catch(() => {});
  });
}

export function disconnectLive() {
  source?.close();
  source = null;
  delete document.body.dataset.live;
}

export function checkRow(id) {
  return rows.get(id);
}

export function allChecks() {
  return order.map((id) => rows.get(id)).filter(Boolean);
}

export function listState() {
  return state;
}

/** Re-renders the component whenever any row changes. */
export function useChecks() {
  const [, setVersion] = useState(version);
  useEffect(() => {
    listeners.add(setVersion);
    return () => listeners.delete(setVersion);
  }, []);
  return allChecks();
}
