import type { ProbeResult, SslAlertMemory, SslInfo } from '../domain/probe-types.js';
import type { MonitorEvent, MonitorEventType, MonitorStatus, Regions } from '../domain/events.js';
import type { PeerVerdict } from './peer.js';

/**
 * The pure check state machine (DESIGN 5): `(state, policy, input, now) -> transition`, with
 * no I/O, clock reads or randomness. Confirmation, peer verdicts, maintenance and SSL
 * thresholds live here and nowhere else.
 *
 * Choices where the spec is silent:
 * - A probe check going pending -> down emits `website_down` (previousStatus `pending`): a new
 *   check that never worked is news worth an alert. "No alert from pending" is kept for
 *   heartbeats that never pinged: a missed deadline while pending changes nothing at all.
 * - Heartbeats go down on the first missed deadline or explicit fail ping (spec §3 table: the
 *   confirmation count is a probe rule). A fail ping counts even while pending: the job did
 *   report in.
 * - Maintenance freezes the whole state (failures are not counted, SSL alerts are not armed):
 *   "status does not change" then holds for the status endpoint too, and a target still down
 *   when maintenance ends is confirmed and alerted afresh.
 * - A primary failure the peer contradicts (peer ok) is neutral: it neither counts as a failure
 *   nor as a success; only `regions` records it.
 * - Failures below the threshold ask for an immediate recheck while pending as well as up.
 */

export interface MonitorPolicy {
  /** Consecutive failures before a probe check is down, 1..99. */
  downConfirmationAttempts: number;
  immediateRecheckEnabled: boolean;
  /** Ms; a slower successful result marks the check degraded. */
  responseTimeLimit: number | null;
  maintenance: boolean;
}

export const DEFAULT_POLICY: MonitorPolicy = {
  downConfirmationAttempts: 2,
  immediateRecheckEnabled: true,
  responseTimeLimit: null,
  maintenance: false,
};


export interface MonitorState {
  status: MonitorStatus;
  consecutiveFailures: number;
  /** Up, and the last result was slow or failures have started below the threshold. */
  degraded: boolean;
  lastStatusChange: number | null;
  /** The latest failing result's error; set only while down. */
  lastError: string | null;
  /** `website_error` already sent in this down-confirmation cycle. */
  errorAlerted: boolean;
  ssl: SslAlertMemory | null;
  regions: Regions;
}

export function initialState(): MonitorState {
  return {
    status: 'pending',
    consecutiveFailures: 0,
    degraded: false,
    lastStatusChange: null,
    lastError: null,
    errorAlerted: false,
    ssl: null,
    regions: { primary: null, peer: null, regionsTotal: 0, regionsDown: 0, confirmedDown: false },
  };
}

export interface ProbeInput {
  kind: 'probe';
  result: ProbeResult;
  /** Region that ran the probe. */
  region: string | null;
  /** The peer's re-check of a failure; null when none was consulted or none answered. */
  peer: PeerVerdict | null;
}

export interface HeartbeatInput {
  kind: 'heartbeat';
  /** `ping` received; `fail` ping received; `missed`: the late-after deadline passed. */
  signal: 'ping' | 'fail' | 'missed';
  /** For `fail` and `missed`, e.g. missedPingError(interval). */
  error: string | null;
  /** Region that received the ping or ran the deadline. */
  region: string | null;
}

export type MonitorInput = ProbeInput | HeartbeatInput;

/** `immediate`: probe again now instead of waiting the interval. */
export type Recheck = 'immediate' | 'none';

export interface Transition {
  /** The input state object itself when the input was ignored (maintenance; a missed deadline while pending). */
  state: MonitorState;
  events: MonitorEvent[];
  recheck: Recheck;
}

export const SSL_WARNING_MS = 14 * 24 * 60 * 60 * 1000;
const MAX_ATTEMPTS = 99;

/** What one input means to the machine, whatever its source. */
interface Observation {
  outcome: 'success' | 'failure' | 'neutral';
  error: string | null;
  statusCode: number | null;
  responseTime: number | null;
  ssl: SslInfo | null;
  threshold: number;
  canRecheck: boolean;
  primaryOk: boolean;
  region: string | null;
  peer: PeerVerdict | null;
}

export function transition(state: MonitorState, policy: MonitorPolicy, input: MonitorInput, now: number): Transition {
  if (policy.maintenance) return { state, events: [], recheck: 'none' };
  if (input.kind === 'heartbeat' && input.signal === 'missed' && state.status === 'pending') {
    return { state, events: [], recheck: 'none' };
  }
  const obs = observe(input, policy);
  const from = state.status;
  const { changes, alerts, recheck } = statusStep(state, policy, obs, now);

  const status = changes.status ?? from;
  const ssl = obs.ssl === null ? null : sslCheck(state.ssl, obs.ssl, now);
  const next = nextState(state, changes, regionsOf(obs, status), ssl?.memory ?? state.ssl);
  const events: MonitorEvent[] = alerts.map((type) => ({ ...eventOf(type, now, from, next, obs, obs.error, null), since: state.lastStatusChange }));
  if (ssl?.alert) events.push(eventOf(ssl.alert, now, status, next, obs, ssl.reason, obs.ssl));
  return { state: next, events, recheck };
}

interface StatusStep {
  changes: Partial<MonitorState>;
  alerts: MonitorEventType[];
  recheck: Recheck;
}

/** Confirmation: counting failures, crossing the threshold, once-per-cycle website_error. */
function statusStep(state: MonitorState, policy: MonitorPolicy, obs: Observation, now: number): StatusStep {
  const from = state.status;
  if (obs.outcome === 'neutral') return { changes: {}, alerts: [], recheck: 'none' };
  if (obs.outcome === 'success') {
    const limit = policy.responseTimeLimit;
    const slow = limit !== null && obs.responseTime !== null && obs.responseTime > limit;
    const changes: Partial<MonitorState> = { status: 'up', consecutiveFailures: 0, degraded: slow, lastError: null, errorAlerted: false };
    if (from !== 'up') changes.lastStatusChange = now;
    return { changes, alerts: from === 'down' ? ['website_up'] : [], recheck: 'none' };
  }
  const failures = state.consecutiveFailures + 1;
  if (from === 'down') {
    return { changes: { consecutiveFailures: failures, lastError: obs.error }, alerts: [], recheck: 'none' };
  }
  if (failures >= obs.threshold) {
    const changes: Partial<MonitorState> = {
      status: 'down', consecutiveFailures: failures, degraded: false,
      lastError: obs.error, errorAlerted: false, lastStatusChange: now,
    };
    return { changes, alerts: ['website_down'], recheck: 'none' };
  }
  const alertError = from === 'up' && !state.errorAlerted;
  return {
    changes: { consecutiveFailures: failures, degraded: from === 'up', errorAlerted: state.errorAlerted || alertError },
    alerts: alertError ? ['website_error'] : [],
    recheck: obs.canRecheck && policy.immediateRecheckEnabled ? 'immediate' : 'none',
  };
}

function observe(input: MonitorInput, policy: MonitorPolicy): Observation {
  if (input.kind === 'heartbeat') {
    const ok = input.signal === 'ping';
    return {
      outcome: ok ? 'success' : 'failure',
      error: ok ? null : input.error ?? 'Heartbeat failed',
      statusCode: null,
      responseTime: null,
      ssl: null,
      threshold: 1,
      canRecheck: false,
      primaryOk: ok,
      region: input.region,
      peer: null,
    };
  }
  const { result, peer } = input;
  const contradicted = !result.ok && peer !== null && peer.result.ok;
  return {
    outcome: result.ok ? 'success' : contradicted ? 'neutral' : 'failure',
    error: result.ok ? null : result.error ?? 'Probe failed',
    statusCode: result.statusCode,
    responseTime: result.responseTime,
    ssl: result.ssl,
    threshold: attempts(policy.downConfirmationAttempts),
    canRecheck: true,
    primaryOk: result.ok,
    region: input.region,
    peer,
  };
}

function attempts(value: number): number {
  if (!Number.isFinite(value)) return DEFAULT_POLICY.downConfirmationAttempts;
  return Math.min(MAX_ATTEMPTS, Math.max(1, Math.floor(value)));
}

/**
 * The state after a step: `state` itself when nothing changed (most results), so a check's
 * state object lives as long as its status does instead of being replaced by every result; a
 * replaced one has survived into V8's old space by then and is garbage a full collection must
 * find. All fields are written at once so that V8 keeps them inside the object.
 */
function nextState(state: MonitorState, changes: Partial<MonitorState>, regions: Regions, ssl: SslAlertMemory | null): MonitorState {
  const next: MonitorState = {
    status: changes.status ?? state.status,
    consecutiveFailures: changes.consecutiveFailures ?? state.consecutiveFailures,
    degraded: changes.degraded ?? state.degraded,
    lastStatusChange: changes.lastStatusChange !== undefined ? changes.lastStatusChange : state.lastStatusChange,
    lastError: changes.lastError !== undefined ? changes.lastError : state.lastError,
    errorAlerted: changes.errorAlerted ?? state.errorAlerted,
    ssl,
    regions,
  };
  const same = next.status === state.status && next.consecutiveFailures === state.consecutiveFailures && next.degraded === state.degraded &&
    next.lastStatusChange === state.lastStatusChange && next.lastError === state.lastError && next.errorAlerted === state.errorAlerted &&
    ssl === state.ssl && regions === state.regions;
  return same ? state : next;
}

/**
 * One frozen `Regions` per (region, primary up or down) for results without a peer: every check
 * of a region points at the same two objects instead of holding one copy each (memory at
 * 40,000 checks). Regions are few; past the bound a result gets its own copy.
 */
const singleRegion = new Map<string | null, readonly [Regions, Regions]>();
const SINGLE_REGION_BOUND = 256;

function soleRegion(region: string | null, primaryDown: 0 | 1): Regions {
  let pair = singleRegion.get(region);
  if (pair === undefined) {
    const of = (down: 0 | 1): Regions => Object.freeze({ primary: region, peer: null, regionsTotal: 1, regionsDown: down, confirmedDown: false });
    pair = [of(0), of(1)];
    if (singleRegion.size < SINGLE_REGION_BOUND) singleRegion.set(region, pair);
  }
  return pair[primaryDown];
}

function regionsOf(obs: Observation, status: MonitorStatus): Regions {
  const primaryDown = obs.primaryOk ? 0 : 1;
  if (obs.peer === null) return soleRegion(obs.region, primaryDown);
  const peerDown = obs.peer.result.ok ? 0 : 1;
  return {
    primary: obs.region,
    peer: obs.peer.region,
    regionsTotal: 2,
    regionsDown: primaryDown + peerDown,
    confirmedDown: status === 'down' && primaryDown === 1 && peerDown === 1,
  };
}

interface SslCheck {
  memory: SslAlertMemory;
  alert: 'ssl_error' | 'ssl_warning' | null;
  reason: string | null;
}

/** Each threshold alerts once per certificate; a new fingerprint (renewal) re-arms both. */
function sslCheck(previous: SslAlertMemory | null, ssl: SslInfo, now: number): SslCheck {
  const memory = previous !== null && previous.fingerprint === ssl.fingerprint
    ? previous
    : { fingerprint: ssl.fingerprint, warned: false, errored: false };
  const expiresAt = Date.parse(ssl.validTo);
  if (!ssl.valid || expiresAt <= now) {
    if (memory.errored) return { memory, alert: null, reason: null };
    const reason = ssl.error ?? (expiresAt <= now ? `Certificate expired on ${ssl.validTo}` : 'Certificate is invalid');
    return { memory: { ...memory, errored: true }, alert: 'ssl_error', reason };
  }
  if (expiresAt - now <= SSL_WARNING_MS) {
    if (memory.warned) return { memory, alert: null, reason: null };
    const days = Math.floor((expiresAt - now) / 86_400_000);
    const reason = `Certificate expires in ${days} day${days === 1 ? '' : 's'} (${ssl.validTo})`;
    return { memory: { ...memory, warned: true }, alert: 'ssl_warning', reason };
  }
  return { memory, alert: null, reason: null };
}

function eventOf(
  type: MonitorEventType,
  at: number,
  previousStatus: MonitorStatus,
  next: MonitorState,
  obs: Observation,
  error: string | null,
  ssl: SslInfo | null,
): MonitorEvent {
  return {
    type,
    at,
    previousStatus,
    status: next.status,
    error,
    statusCode: obs.statusCode,
    responseTime: obs.responseTime,
    regions: next.regions,
    ssl,
  };
}

export type StatusEndpointStatus = 'online' | 'offline' | 'degraded' | 'unknown';

/** Decisions §4: the status endpoint's vocabulary. `paused` is the check's `disabled` flag. */
export function statusEndpointStatus(state: Pick<MonitorState, 'status' | 'degraded'>, paused: boolean): StatusEndpointStatus {
  if (paused) return 'unknown';
  switch (state.status) {
    case 'up':
      return state.degraded ? 'degraded' : 'online';
    case 'down':
      return 'offline';
    case 'pending':
      return 'unknown';
  }
}

/** The error of a missed heartbeat deadline, e.g. "No ping within 5 min". */
export function missedPingError(intervalMs: number): string {
  const hour = 3_600_000;
  const minute = 60_000;
  if (intervalMs >= hour && intervalMs % hour === 0) return `No ping within ${intervalMs / hour} h`;
  if (intervalMs >= minute && intervalMs % minute === 0) return `No ping within ${intervalMs / minute} min`;
  if (intervalMs % 1000 === 0) return `No ping within ${intervalMs / 1000} s`;
  return `No ping within ${intervalMs} ms`;
}
