import type { Config } from '../config.js';
import type { ProbeType } from '../core/check-types.js';
import type { Check } from '../core/records.js';
import type { MonitorState } from '../monitor/state-machine.js';
import { initialState } from '../monitor/state-machine.js';
import type { ProbeTask } from './probe-types.js';

const MAX_PROBE_TIMEOUT_MS = 30_000;

/** Types the wheel probes on an interval; heartbeats and domains run on deadlines instead. */
export function isProbeType(type: Check['type']): type is ProbeType {
  return type !== 'heartbeat' && type !== 'domain';
}

export function intervalMs(check: Pick<Check, 'intervalMinutes'>): number {
  return Math.max(1000, Math.round(check.intervalMinutes * 60_000));
}

/** What a worker needs for one probe of this check (structured-cloneable). */
export function probeTask(check: Check, config: Config): ProbeTask {
  return {
    type: check.type as ProbeType,
    url: check.url,
    method: check.method,
    headers: check.headers,
    body: check.body,
    expectedStatusCodes: check.expectedStatusCodes,
    responseValidation: check.responseValidation,
    cacheControlNoCache: check.cacheControlNoCache,
    pingPackets: check.pingPackets,
    // The smaller of 30 s and the interval: a probe never overlaps its own next run.
    timeoutMs: Math.min(MAX_PROBE_TIMEOUT_MS, intervalMs(check)),
    blockPrivateAddresses: config.probes.blockPrivateAddresses,
  };
}

/** The state machine's view of a stored check. */
export function monitorState(check: Check): MonitorState {
  const initial = initialState();
  return {
    status: check.status,
    consecutiveFailures: check.consecutiveFailures,
    degraded: check.degraded,
    lastStatusChange: check.lastStatusChange,
    lastError: check.lastError,
    errorAlerted: check.errorAlerted,
    ssl: check.sslAlerts,
    regions: check.regions ?? initial.regions,
  };
}
