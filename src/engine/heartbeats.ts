import type { Cron } from 'croner';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { CheckObserver } from '../domain/check-observer.js';
import { endLapsedMaintenance, inMaintenance, takeLapsedMaintenance } from '../monitor/maintenance.js';
import type { Clock } from '../domain/clock.js';
import { cronSchedule, nextRunAfter } from '../domain/cron.js';
import type { Check } from '../domain/records.js';
import { missedPingError, transition, type MonitorState } from '../monitor/state-machine.js';
import type { BatchWriter } from '../store/sqlite/batch-writer.js';
import type { Store } from '../store/store.js';
import { intervalMs, monitorState } from './check-task.js';
import { COUNTERS_EVERY_MS, type Engine, type EventSink } from './engine.js';
import { HeartbeatTokens } from './heartbeat-tokens.js';
import { wheelId } from './timing-wheel.js';
import type { RollupStore } from '../store/rollup-store.js';

/** What a ping said: a plain ping is success; `/start`, `/fail` and `/<exit code>` say more. */
export type PingSignal = { kind: 'success' } | { kind: 'start' } | { kind: 'fail' } | { kind: 'exit'; code: number };

export interface PingMetadata {
  status?: string;
  duration?: number;
  message?: string;
}

interface WatchedHeartbeat {
  id: string;
  seq: number;
  accountId: string;
  disabled: boolean;
  maintenance: boolean;
  maintenanceUntil: number | null;
  intervalMs: number;
  graceMs: number;
  cron: Cron | null;
  state: MonitorState;
  lastPingAt: number | null;
  /** When the running job reported `/start`, for the run's duration. */
  startedAt: number | null;
  /** Uptime counters (spec 2.1 `uptime`): every up or down ping counts, as in the stats. */
  probesTotal: number;
  probesUp: number;
  countersWrittenAt: number;
}

export interface HeartbeatDeps {
  store: Store;
  writer: BatchWriter;
  engine: Engine;
  clock: Clock;
  config: Config;
  log: Logger;
  onEvent?: EventSink;
  /** Rollups: every up/down ping is a result, as a probe is. */
  aggregator?: Pick<RollupStore, 'addSample'>;
}

/**
 * Heartbeat checks: pings come in, the absence of one by the deadline marks the check down
 * (spec §3). Deadlines live on the engine's wheel; transitions go through the same state
 * machine and event sink as probes; a ping is acknowledged only after its group commit.
 */
export class HeartbeatMonitor implements CheckObserver {
  readonly tokens = new HeartbeatTokens();
  private readonly watched = new Map<string, WatchedHeartbeat>();

  constructor(private readonly deps: HeartbeatDeps) {
    deps.engine.onDeadline('deadline', (checkId) => this.missed(checkId));
  }

  /** Loads every heartbeat check, re-arming deadlines from the last ping in history. */
  start(): void {
    for (const check of this.deps.store.checks.allHeartbeats()) {
      this.watch(check, this.deps.store.history.lastAt(check.seq, 'ping'));
    }
  }

  checkSaved(check: Check): void {
    if (check.type !== 'heartbeat') return;
    this.watch(check, this.watched.get(check.id)?.lastPingAt ?? null);
  }

  checkDeleted(check: Pick<Check, 'id'>): void {
    this.tokens.delete(check.id);
    this.watched.delete(check.id);
    this.deps.engine.wheel.cancel(wheelId('deadline', check.id));
  }

  /** Records a ping; resolves false for an unknown token (404), true once committed. */
  async ping(token: string, signal: PingSignal, meta: PingMetadata): Promise<boolean> {
    const checkId = this.tokens.lookup(token);
    const w = checkId === null ? undefined : this.watched.get(checkId);
    if (!w) return false;
    const now = this.deps.clock.now();
    const failed = signal.kind === 'fail' || (signal.kind === 'exit' && signal.code !== 0);
    const details: Record<string, unknown> = { ...meta, signal: signal.kind };
    if (signal.kind === 'exit') details.exitCode = signal.code;

    if (signal.kind === 'start') {
      if (!w.disabled) w.startedAt = now;
      await this.commit(w, now, 'start', null, details, null, false);
      return true;
    }
    if (w.startedAt !== null && details.duration === undefined) details.duration = now - w.startedAt;
    w.startedAt = null;
    const error = failed ? (meta.message ?? (signal.kind === 'exit' ? `Job exited with code ${signal.code}` : 'Job reported failure')) : null;
    if (w.disabled) {
      // Pings to a paused check are recorded but change nothing.
      await this.commit(w, now, failed ? 'down' : 'up', error, details, null, false);
      return true;
    }
    this.endLapsedMaintenance(w, now);
    const before = w.state;
    const t = transition(
      before,
      { downConfirmationAttempts: 1, immediateRecheckEnabled: false, responseTimeLimit: null, maintenance: inMaintenance(w, now) },
      { kind: 'heartbeat', signal: failed ? 'fail' : 'ping', error, region: this.deps.config.region },
      now,
    );
    w.state = t.state;
    w.lastPingAt = now;
    this.arm(w, now);
    await this.commit(w, now, failed ? 'down' : 'up', error, details, before, true);
    for (const event of t.events) this.deps.onEvent?.({ id: w.id, accountId: w.accountId, seq: w.seq }, event);
    return true;
  }

  /** The deadline passed with no ping. */
  private missed(checkId: string): void {
    const w = this.watched.get(checkId);
    if (!w || w.disabled) return;
    const now = this.deps.clock.now();
    this.endLapsedMaintenance(w, now);
    const before = w.state;
    const t = transition(
      before,
      { downConfirmationAttempts: 1, immediateRecheckEnabled: false, responseTimeLimit: null, maintenance: inMaintenance(w, now) },
      { kind: 'heartbeat', signal: 'missed', error: missedPingError(w.intervalMs), region: this.deps.config.region },
      now,
    );
    if (t.state === before) return;
    w.state = t.state;
    const { store, config } = this.deps;
    this.deps.writer.submit(() => {
      this.saveState(w, before, now);
      // No ping is the result: the history shows when and why the check went down.
      if (before.status !== t.state.status) {
        store.history.insertEvent({ checkSeq: w.seq, at: now, status: t.state.status, region: config.region, meta: { event: 'missed', error: t.state.lastError } });
      }
    });
    for (const event of t.events) this.deps.onEvent?.({ id: w.id, accountId: w.accountId, seq: w.seq }, event);
  }

  private endLapsedMaintenance(w: WatchedHeartbeat, now: number): void {
    const lapsed = takeLapsedMaintenance(w, now);
    if (lapsed !== null) this.deps.writer.submit(() => endLapsedMaintenance(this.deps.store, w, lapsed));
  }

  private watch(check: Check, lastPingAt: number | null): void {
    if (check.heartbeatToken) this.tokens.set(check.id, check.heartbeatToken);
    const previous = this.watched.get(check.id);
    const w: WatchedHeartbeat = {
      id: check.id,
      seq: check.seq,
      accountId: check.accountId,
      disabled: check.disabled,
      maintenance: check.maintenance,
      maintenanceUntil: check.maintenanceUntil,
      intervalMs: intervalMs(check),
      graceMs: check.gracePeriodSeconds * 1000,
      cron: check.schedule ? cronSchedule(check.schedule, check.timezone) : null,
      state: previous?.state ?? monitorState(check),
      lastPingAt,
      startedAt: previous?.startedAt ?? null,
      probesTotal: previous?.probesTotal ?? check.probesTotal,
      probesUp: previous?.probesUp ?? check.probesUp,
      countersWrittenAt: previous?.countersWrittenAt ?? this.deps.clock.now(),
    };
    this.watched.set(check.id, w);
    this.deps.engine.wheel.cancel(wheelId('deadline', check.id));
    if (!w.disabled) this.arm(w, this.deps.clock.now());
  }

  /** Late after: the next expected ping (interval, or the next cron run) plus the grace period. */
  private arm(w: WatchedHeartbeat, now: number): void {
    // Pending until the first ping: no deadline, so no alert can ever fire from pending.
    if (w.lastPingAt === null || w.state.status === 'pending') return;
    const expected = w.cron ? nextRunAfter(w.cron, w.lastPingAt) : w.lastPingAt + w.intervalMs;
    if (expected === null) return;
    this.deps.engine.wheel.schedule(wheelId('deadline', w.id), Math.max(now, expected + w.graceMs));
  }

  private commit(
    w: WatchedHeartbeat, now: number, status: 'up' | 'down' | 'start', error: string | null,
    details: Record<string, unknown>, before: MonitorState | null, stateful: boolean,
  ): Promise<void> {
    const { store } = this.deps;
    if (status !== 'start') {
      w.probesTotal++;
      if (status === 'up') w.probesUp++;
    }
    return this.deps.writer.commit(() => {
      store.history.insertResult({
        checkSeq: w.seq, at: now, kind: 'ping', status, statusCode: null,
        responseTime: null, timing: null, error, region: this.deps.config.region, snippet: null, meta: details,
      });
      if (stateful && before) this.saveState(w, before, now);
      if (status !== 'start') this.deps.aggregator?.addSample(w.seq, now, { ok: status === 'up', responseTime: null, timing: null });
    });
  }

  /** Writes the check row only when something visible changed (most pings change nothing). */
  private saveState(w: WatchedHeartbeat, before: MonitorState, now: number): void {
    const s = w.state;
    const statusChanged = before.status !== s.status;
    const visible = statusChanged || before.lastError !== s.lastError || before.consecutiveFailures !== s.consecutiveFailures;
    if (!visible && now - w.countersWrittenAt < COUNTERS_EVERY_MS) return;
    const { store } = this.deps;
    if (!store.checks.byId(w.id)) return;
    w.countersWrittenAt = now;
    store.checks.saveRuntime(w.id, {
      status: s.status,
      consecutiveFailures: s.consecutiveFailures,
      degraded: s.degraded,
      lastError: s.lastError,
      lastStatusChange: s.lastStatusChange,
      probesTotal: w.probesTotal,
      probesUp: w.probesUp,
      ssl: null,
      regions: s.regions,
      errorAlerted: s.errorAlerted,
      sslAlerts: null,
      sync: statusChanged ? { lastChecked: now, lastResponseTime: null, lastStatusCode: null } : null,
    });
    if (statusChanged) store.stateChanges.append(w.seq, now, s.status);
  }
}
