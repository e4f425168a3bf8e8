import { Counter, Gauge, Registry } from 'prom-client';
import type { Check } from '../domain/records.js';
import { publicStatus } from '../core/views.js';

export const UPTIME_WINDOWS = ['1d', '7d', '30d'] as const;
export type UptimeWindow = (typeof UPTIME_WINDOWS)[number];

/** A check with what its metrics need beyond the record. */
export interface CheckReading {
  check: Check;
  /** Uptime percentage per window; null without data. */
  uptime: Record<UptimeWindow, number | null>;
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
  const rt = new Gauge({ name: 'vigil_check_response_time_seconds', help: 'Response time of the latest probe', labelNames: LABELS, registers });
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
  const probes = new Counter({ name: 'vigil_probes_total', help: 'Probe results recorded for the check', labelNames: [...LABELS, 'result'], registers });
  for (const { check, uptime: windows } of readings) {
    const labels = { check_id: check.id, name: check.name, type: check.type };
    const status = publicStatus(check);
    if (status === 'up' || status === 'down') up.set(labels, status === 'up' ? 1 : 0);
    if (check.lastResponseTime !== null) rt.set(labels, check.lastResponseTime / 1000);
    for (const window of UPTIME_WINDOWS) {
      const value = windows[window];
      if (value !== null) uptime.set({ ...labels, window }, value / 100);
    }
    const expiry = check.ssl?.validTo ? Date.parse(check.ssl.validTo) : NaN;
    if (Number.isFinite(expiry)) cert.set(labels, expiry / 1000);
    probes.inc({ ...labels, result: 'up' }, check.probesUp);
    probes.inc({ ...labels, result: 'down' }, check.probesTotal - check.probesUp);
  }
  return registry;
}
