import type { MonitorStatus } from '../domain/events.js';
import type { SslInfo } from '../domain/probe-types.js';
import type { Check } from '../domain/records.js';
import { initialState, type MonitorPolicy, type MonitorState } from './state-machine.js';

/** The latest observation of a check, kept in memory only (the record's `lastProbe`). */
export interface LastProbe {
  at: number;
  status: 'up' | 'down';
  responseTime: number | null;
  region: string | null;
}

/** Heartbeats and domain checks: the first failure counts, and nothing is re-checked at once. */
export const DEADLINE_POLICY: Omit<MonitorPolicy, 'maintenance'> = Object.freeze({
  downConfirmationAttempts: 1,
  immediateRecheckEnabled: false,
  responseTimeLimit: null,
});

type ProbePolicy = Omit<MonitorPolicy, 'maintenance'>;
/** Distinct policies are few (most checks keep the defaults); past the bound a check gets its own copy. */
const POLICIES_BOUND = 1024;
const policies = new Map<string, ProbePolicy>();

/**
 * A probe check's policy, one frozen copy per distinct value shared by every check that has it:
 * a copy per check cost 46 bytes each, at 40,000 checks 1.8 MB of live heap.
 */
export function probePolicy(check: Pick<Check, 'downConfirmationAttempts' | 'immediateRecheckEnabled' | 'responseTimeLimit'>): ProbePolicy {
  const key = `${check.downConfirmationAttempts}|${check.immediateRecheckEnabled}|${check.responseTimeLimit}`;
  let policy = policies.get(key);
  if (policy === undefined) {
    policy = Object.freeze({
      downConfirmationAttempts: check.downConfirmationAttempts,
      immediateRecheckEnabled: check.immediateRecheckEnabled,
      responseTimeLimit: check.responseTimeLimit,
    });
    if (policies.size < POLICIES_BOUND) policies.set(key, policy);
  }
  return policy;
}

const INITIAL_REGIONS = Object.freeze(initialState().regions);
const STATUSES: Record<MonitorStatus, MonitorStatus> = { pending: 'pending', up: 'up', down: 'down' };

/** What an observation's write moves in a live entry. */
export interface LiveSnapshot {
  state: MonitorState;
  probesTotal: number;
  probesUp: number;
  ssl: SslInfo | null;
  lastSyncedAt: number;
  countersWrittenAt: number;
}

/**
 * What monitoring knows of one check, in memory, between observations: the state machine's
 * state, the counters and when the check row was last written. The engine, the heartbeat
 * monitor and the domain monitor each keep one per check they watch and hand it to the
 * recorder with every observation; it is newer than the stored row (writes are batched).
 *
 * Built from the stored row, or from `previous` when the check was already watched (its state
 * is newer than the row); settings (policy, maintenance) always come from the check. A class
 * that sets every field in its constructor, so a subclass's fields (the engine's) stay inside
 * the object too: fields added to a plain object afterwards went to a second array.
 */
export class LiveCheck {
  readonly id: string;
  readonly seq: number;
  readonly accountId: string;
  readonly policy: Omit<MonitorPolicy, 'maintenance'>;
  maintenance: boolean;
  maintenanceUntil: number | null;
  windowMaintenance: boolean;
  state: MonitorState;
  /** Uptime counters (spec 2.1 `uptime`): every result counts. */
  probesTotal: number;
  probesUp: number;
  /**
   * The counters when this process began watching the check: /metrics counts from there
   * (Prometheus counters start at zero with the process), at no cost per result.
   */
  readonly watchedFromTotal: number;
  readonly watchedFromUp: number;
  ssl: SslInfo | null;
  /** When the timing fields (lastChecked, lastResponseTime, lastStatusCode) were last written. */
  lastSyncedAt: number;
  /** When the check row's runtime fields were last written. */
  countersWrittenAt: number;
  /** The state-change log may not know the current status yet (fresh start, resume after 'pending'). */
  verifyLog: boolean;
  lastProbe: LastProbe | null;
  /**
   * How many observation writes of this check the recorder has followed (the latest one's
   * number), and what the latest moved here from (put back if that write does not commit).
   * Kept on the entry, not per write: only the latest write's starting point is ever put back.
   */
  latestWrite: number;
  beforeUnsettled: LiveSnapshot | null;

  constructor(check: Check, policy: Omit<MonitorPolicy, 'maintenance'>, accountId: string, previous: LiveCheck | undefined, now: number) {
    this.id = check.id;
    this.seq = check.seq;
    this.accountId = accountId;
    this.policy = policy;
    this.maintenance = check.maintenance;
    this.maintenanceUntil = check.maintenanceUntil;
    this.windowMaintenance = check.windowMaintenance;
    this.state = previous?.state ?? monitorState(check);
    this.probesTotal = previous?.probesTotal ?? check.probesTotal;
    this.probesUp = previous?.probesUp ?? check.probesUp;
    this.watchedFromTotal = previous?.watchedFromTotal ?? this.probesTotal;
    this.watchedFromUp = previous?.watchedFromUp ?? this.probesUp;
    this.ssl = previous?.ssl ?? check.ssl;
    this.lastSyncedAt = previous?.lastSyncedAt ?? check.lastChecked ?? 0;
    this.countersWrittenAt = previous?.countersWrittenAt ?? now;
    this.verifyLog = previous === undefined;
    this.lastProbe = previous?.lastProbe ?? null;
    this.latestWrite = 0;
    this.beforeUnsettled = null;
  }
}

export function liveCheck(
  check: Check, policy: Omit<MonitorPolicy, 'maintenance'>, accountId: string, previous: LiveCheck | undefined, now: number,
): LiveCheck {
  return new LiveCheck(check, policy, accountId, previous, now);
}

/** The state machine's view of a stored check. Shared values point at one frozen copy (memory at 100,000 checks). */
export function monitorState(check: Check): MonitorState {
  return {
    status: STATUSES[check.status],
    consecutiveFailures: check.consecutiveFailures,
    degraded: check.degraded,
    lastStatusChange: check.lastStatusChange,
    lastError: check.lastError,
    errorAlerted: check.errorAlerted,
    ssl: check.sslAlerts,
    regions: check.regions ?? INITIAL_REGIONS,
  };
}
