import { Counter, Gauge, Registry } from 'prom-client';
import type { Check } from '../domain/records.js';
import { publicStatus } from '../core/views.js';
import { ratio, seconds } from './sample-value.js';
import type { LiveCheck } from '../monitor/live-check.js';

export const UPTIME_WINDOWS = ['1d', '7d', '30d'] as const;
export type UptimeWindow = (typeof UPTIME_WINDOWS)[number];

/** A check with what its metrics need beyond the record. */
export interface CheckReading {
  check: Check;
  /** Uptime percentage per window; null without data. */
  uptime: Record<UptimeWindow, number | null>;
  /** What the monitor holds in memory while it watches the check (null: paused, or not watched here). */
  live: Pick<LiveCheck, 'probesTotal' | 'probesUp' | 'watchedFromTotal' | 'watchedFromUp' | 'lastProbe'> | null;
}

const LABELS = ['check_id', 'name', 'type'] as const;

/**
 * Per-check metrics of the checks one key may see, in a registry made for this scrape (another
 * key's scrape never shows them).
 */
export function checkRegistry(readings: readonly CheckReading[]): Registry {
  const registry = new Registry();
  const registers = [registry];
  const up = new Gauge({ name: 'vigil_check_up', help: '1 when the check is up, 0 when down (absent while paused or pending)', labelNames: LABELS, registers });
  const rt = new Gauge({
    name: 'vigil_check_response_time_seconds',
    help: 'Response time of the latest probe (absent until the first probe since start, and when it had none)',
    labelNames: LABELS,
    registers,
  });
  const uptime = new Gauge({
    name: 'vigil_check_uptime_ratio',
    help: 'Share of the window the check was up (0 to 1)',
    labelNames: [...LABELS, 'window'],
    registers,
  });
  const cert = new Gauge({
    name: 'vigil_check_cert_expiry_timestamp_seconds',
    help: 'When the TLS certificate the check last saw expires (Unix time)',
    labelNames: LABELS,
    registers,
  });
  // Tags and folder on one series per check, joined in PromQL (`* on (check_id) group_left(tags)`),
  // so no other series gains a label per tag.
  const info = new Gauge({
    name: 'vigil_check_info',
    help: 'Always 1: the check\'s folder and tags (comma-separated, as given)',
    labelNames: [...LABELS, 'folder', 'tags'],
    registers,
  });
  const probes = new Counter({
    name: 'vigil_probes_total',
    help: 'Results (probes; pings for heartbeats) recorded for the check since this server began watching it',
    labelNames: [...LABELS, 'result'],
    registers,
  });
  for (const { check, uptime: windows, live } of readings) {
    const labels = { check_id: check.id, name: check.name, type: check.type };
    info.set({ ...labels, folder: check.folder ?? '', tags: check.tags.join(',') }, 1);
    const status = publicStatus(check);
    if (status === 'up' || status === 'down') up.set(labels, status === 'up' ? 1 : 0);
    const responseTime = live?.lastProbe?.responseTime ?? null;
    if (responseTime !== null) rt.set(labels, seconds(responseTime));
    for (const window of UPTIME_WINDOWS) {
      const value = windows[window];
      if (value !== null) uptime.set({ ...labels, window }, ratio(value));
    }
    const expiry = check.ssl?.validTo ? Date.parse(check.ssl.validTo) : NaN;
    if (Number.isFinite(expiry)) cert.set(labels, seconds(expiry));
    if (live) {
      const upCount = live.probesUp - live.watchedFromUp;
      probes.inc({ ...labels, result: 'up' }, upCount);
      probes.inc({ ...labels, result: 'down' }, live.probesTotal - live.watchedFromTotal - upCount);
    }
  }
  return registry;
}
