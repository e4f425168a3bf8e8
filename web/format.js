export const ms = (v) => (v === null || v === undefined ? '—' : v >= 1000 ? `${(v / 1000).toFixed(2)} s` : `${Math.round(v)} ms`);
export const pct = (v) => (v === null || v === undefined ? '—' : `${v >= 99.995 ? '100' : v.toFixed(2)}%`);

export function ago(iso) {
  if (!iso) return 'never';
  const s = Math.round((Date.now() - Date.parse(iso)) / 1000);
  if (s < 60) return `${Math.max(0, s)} s ago`;
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 86400) return `${Math.round(s / 3600)} h ago`;
  return `${Math.round(s / 86400)} d ago`;
}

export function duration(msValue) {
  const s = Math.round(msValue / 1000);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
  return `${Math.floor(s / 86400)} d ${Math.floor((s % 86400) / 3600)} h`;
}

export const when = (iso) => (iso ? new Date(iso).toLocaleString() : '—');

/** What a row's status badge says: maintenance wins over the probe state; a slow up check is `degraded`, as the status endpoint says. */
export const statusLabel = (row) => (row.maintenance ? 'maintenance' : row.status === 'up' && row.degraded ? 'degraded' : row.status);

/** How often a check runs: its interval, or a heartbeat's cron schedule in words, with the expression and its zone. */
export function cadence(check) {
  if (!check.schedule) return `every ${check.interval} min`;
  const words = check.scheduleDescription ?? 'On a schedule';
  return `${words.charAt(0).toLowerCase()}${words.slice(1)} (cron ${check.schedule}, ${check.timezone ?? 'UTC'})`;
}

/** When a scheduled heartbeat's next ping is due, in the reader's time, its zone named. */
export const nextPing = (iso) =>
  new Date(iso).toLocaleString(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', timeZoneName: 'short' });
