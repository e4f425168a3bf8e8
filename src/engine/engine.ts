import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { CheckObserver } from '../domain/check-observer.js';
import { endLapsedMaintenance, inMaintenance, takeLapsedMaintenance } from '../monitor/maintenance.js';
import type { Clock } from '../domain/clock.js';
import type { Check } from '../domain/records.js';
import type { MonitorEvent } from '../domain/events.js';
import { NoPeer, type PeerRechecker, type PeerVerdict } from '../monitor/peer.js';
import { transition, type MonitorPolicy, type MonitorState } from '../monitor/state-machine.js';
import type { BatchWriter } from '../store/sqlite/batch-writer.js';
import type { Store } from '../store/store.js';
import type { ResultAggregator } from '../store/rollup-store.js';
import { intern, intervalMs, isProbeType, monitorState, probeTask } from './check-task.js';
import type { ProbeDispatcher } from './dispatcher.js';
import type { ProbeResult, ProbeTask, SslInfo } from '../domain/probe-types.js';
import { followingDue, nextDue, parseWheelId, TimingWheel, wheelId, type WheelEntryKind } from './timing-wheel.js';
import { startWheelDriver, type WheelDriver } from './wheel-driver.js';
import { Histogram } from '../domain/histogram.js';

/** Where transitions go: the alert pipeline subscribes (a later layer). */
export type EventSink = (check: { id: string; accountId: string; seq: number }, event: MonitorEvent) => void;

/** Timing fields are synced on status changes and at least this often (spec 2.2 rule 2). */
const SYNC_EVERY_MS = 24 * 60 * 60 * 1000;
/** The uptime counters reach the database at least this often even when nothing else changes. */
export const COUNTERS_EVERY_MS = 10 * 60 * 1000;

/** One scheduled check: only what probing and the state machine need, kept small. */
interface Scheduled {
  id: string;
  seq: number;
  accountId: string;
  intervalMs: number;
  task: ProbeTask;
  policy: Omit<MonitorPolicy, 'maintenance'>;
  maintenance: boolean;
  maintenanceUntil: number | null;
  state: MonitorState;
  probesTotal: number;
  probesUp: number;
  ssl: SslInfo | null;
  lastSyncedAt: number;
  countersWrittenAt: number;
  inFlight: boolean;
  /** The state-change log may not know the current status yet (fresh start, resume after 'pending'). */
  verifyLog: boolean;
}

export interface EngineDeps {
  store: Store;
  writer: BatchWriter;
  dispatcher: ProbeDispatcher;
  clock: Clock;
  config: Config;
  log: Logger;
  onEvent?: EventSink;
  aggregator?: ResultAggregator;
  /** A second region that re-checks failures before they count (none on a single node). */
  peer?: PeerRechecker;
  /** Tests drive the wheel themselves; production ticks on real time. */
  autoStart?: boolean;
}

/**
 * Schedules every enabled check on the timing wheel, sends due probes to the dispatcher and
 * runs each result through the state machine, then hands one write per result to the batched
 * writer. Nothing here waits on an HTTP client, and no request waits on a probe.
 */
export class Engine implements CheckObserver {
  readonly wheel: TimingWheel;
  private readonly scheduled = new Map<string, Scheduled>();
  /** Handlers of the wheel's other entry kinds (heartbeat deadlines, domain checks). */
  private readonly deadlineHandlers = new Map<WheelEntryKind, (checkId: string, dueAt: number) => void>();
  private driver: WheelDriver | null = null;
  /** Probes dispatched whose results are not recorded yet. */
  private probing = 0;
  /** Set once shutdown stops waiting: results the closing pool fails are not the targets' fault. */
  private closing = false;
  /**
   * Counters since start, for benchmarks and operators: `lag` is how late each probe was sent
   * (under one tick by design, plus event-loop delay); `tickDelay` is the event-loop delay
   * alone, how late each tick ran after its boundary.
   */
  readonly metrics = {
    fired: 0, skippedInFlight: 0, completed: 0, lag: new Histogram(), tickDelay: new Histogram(),
    /** When the wheel last advanced (readiness: the engine is ticking); null before the first tick. */
    lastTickAt: null as number | null,
  };
  private readonly region: string;
  private readonly peer: PeerRechecker;

  constructor(private readonly deps: EngineDeps) {
    this.wheel = new TimingWheel({ clock: deps.clock, tickMs: 100 });
    this.region = deps.config.region;
    this.peer = deps.peer ?? new NoPeer();
  }

  /** Loads every enabled check, each at its stable phase: a restart makes no thundering herd. */
  start(): void {
    const now = this.deps.clock.now();
    this.deps.store.checks.forEachEnabled((check) => this.add(check, false, now));
    if (this.deps.autoStart !== false) {
      this.driver = startWheelDriver({
        wheel: this.wheel,
        clock: this.deps.clock,
        fire: (id, dueAt) => this.dispatch(id, dueAt),
        onError: (err) => this.deps.log.error({ err }, 'scheduler error'),
        onTick: (lateMs) => {
          this.metrics.tickDelay.record(lateMs);
          this.metrics.lastTickAt = this.deps.clock.now();
        },
      });
    }
  }

  get size(): number {
    return this.scheduled.size;
  }

  /** Probes whose results are not recorded yet (shutdown waits for them, bounded). */
  get inFlight(): number {
    return this.probing;
  }

  async stop(graceMs = 5_000): Promise<void> {
    this.driver?.stop();
    this.driver = null;
    const deadline = Date.now() + graceMs;
    // Running probes finish and are recorded; queued ones are dropped by close().
    while (this.probing > this.deps.dispatcher.queued && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    this.closing = true;
    await this.deps.dispatcher.close();
  }

  /** Advances the wheel to the clock (tests with a manual clock call this). */
  tick(): void {
    this.metrics.lastTickAt = this.deps.clock.now();
    this.wheel.advance(this.deps.clock.now(), (id, dueAt) => this.dispatch(id, dueAt));
  }

  /** Routes wheel entries of another kind (e.g. `deadline`) to their owner. */
  onDeadline(kind: Exclude<WheelEntryKind, 'probe'>, handler: (checkId: string, dueAt: number) => void): void {
    this.deadlineHandlers.set(kind, handler);
  }

  checkSaved(check: Check, runNow: boolean): void {
    if (check.disabled || !isProbeType(check.type)) {
      this.checkDeleted(check);
      return;
    }
    this.add(check, runNow, this.deps.clock.now());
  }

  checkDeleted(check: Pick<Check, 'id'>): void {
    this.scheduled.delete(check.id);
    this.wheel.cancel(wheelId('probe', check.id));
  }

  private add(check: Check, runNow: boolean, now: number): void {
    if (!isProbeType(check.type) || check.disabled) return;
    const previous = this.scheduled.get(check.id);
    const entry: Scheduled = {
      id: check.id,
      seq: check.seq,
      accountId: intern(check.accountId),
      intervalMs: intervalMs(check),
      task: probeTask(check, this.deps.config),
      policy: {
        downConfirmationAttempts: check.downConfirmationAttempts,
        immediateRecheckEnabled: check.immediateRecheckEnabled,
        responseTimeLimit: check.responseTimeLimit,
      },
      maintenance: check.maintenance,
      maintenanceUntil: check.maintenanceUntil,
      // A live entry's state is newer than the stored row (writes are batched).
      state: previous?.state ?? monitorState(check),
      probesTotal: previous?.probesTotal ?? check.probesTotal,
      probesUp: previous?.probesUp ?? check.probesUp,
      ssl: previous?.ssl ?? check.ssl,
      lastSyncedAt: previous?.lastSyncedAt ?? check.lastChecked ?? 0,
      countersWrittenAt: now,
      inFlight: false,
      verifyLog: previous === undefined,
    };
    this.scheduled.set(check.id, entry);
    this.wheel.schedule(wheelId('probe', check.id), runNow ? now : nextDue(check.id, entry.intervalMs, now));
  }

  private dispatch(id: string, dueAt: number): void {
    const parsed = parseWheelId(id);
    if (!parsed) return;
    if (parsed.kind === 'probe') this.fire(id, parsed.checkId, dueAt);
    else this.deadlineHandlers.get(parsed.kind)?.(parsed.checkId, dueAt);
  }

  private fire(id: string, checkId: string, dueAt: number): void {
    const entry = this.scheduled.get(checkId);
    if (!entry) return;
    const now = this.deps.clock.now();
    this.wheel.schedule(id, followingDue(entry.id, entry.intervalMs, dueAt, now));
    this.metrics.fired++;
    this.metrics.lag.record(Math.max(0, now - dueAt));
    if (entry.inFlight) {
      this.metrics.skippedInFlight++; // the previous probe is still running: skip, never pile up
      return;
    }
    entry.inFlight = true;
    this.probing++;
    this.deps.dispatcher.run(entry.task).then(
      async (result) => this.record(entry, result, result.ok ? null : await this.peer.recheck(entry.task)),
      (err: unknown) => this.deps.log.error({ err, checkId: entry.id }, 'probe dispatch failed'),
    ).finally(() => {
      entry.inFlight = false;
      this.probing--;
    });
  }

  private record(entry: Scheduled, result: ProbeResult, peer: PeerVerdict | null): void {
    // A check deleted, paused or changed while its probe ran: this result is for a stale entry.
    this.metrics.completed++;
    if (this.closing || this.scheduled.get(entry.id) !== entry) return;
    const now = this.deps.clock.now();
    const lapsed = takeLapsedMaintenance(entry, now);
    const maintenance = inMaintenance(entry, now);
    const before = entry.state;
    const t = transition(before, { ...entry.policy, maintenance }, { kind: 'probe', result, region: this.region, peer }, now);
    entry.state = t.state;
    entry.probesTotal++;
    if (result.ok) entry.probesUp++;
    const sslChanged = result.ssl !== null && (result.ssl.fingerprint !== entry.ssl?.fingerprint || result.ssl.valid !== entry.ssl?.valid);
    if (result.ssl) entry.ssl = result.ssl;

    const statusChanged = before.status !== t.state.status;
    const visibleChanged = statusChanged || sslChanged || stateDiffers(before, t.state);
    const syncDue = statusChanged || now - entry.lastSyncedAt >= SYNC_EVERY_MS;
    const countersDue = now - entry.countersWrittenAt >= COUNTERS_EVERY_MS;
    if (syncDue) entry.lastSyncedAt = now;
    if (visibleChanged || syncDue || countersDue) entry.countersWrittenAt = now;

    const { store, writer } = this.deps;
    const verifyLog = entry.verifyLog;
    entry.verifyLog = false;
    const runtime = visibleChanged || syncDue || countersDue ? this.runtimeOf(entry, syncDue ? result : null) : null;
    writer.submit(() => {
      store.history.insertResult({
        checkSeq: entry.seq,
        at: result.startedAt,
        kind: 'probe',
        status: result.ok ? 'up' : 'down',
        statusCode: result.statusCode,
        responseTime: result.responseTime,
        timing: result.timing,
        error: result.error,
        region: this.region,
        snippet: result.snippet,
        meta: result.location ? { location: result.location } : null,
      });
      if (runtime) store.checks.saveRuntime(entry.id, runtime);
      if (lapsed !== null) endLapsedMaintenance(store, entry, lapsed);
      if (statusChanged || (verifyLog && store.stateChanges.between(entry.seq, now, now)[0]?.status !== t.state.status)) {
        store.stateChanges.append(entry.seq, now, t.state.status);
      }
      this.deps.aggregator?.add(entry.seq, result);
    });

    for (const event of t.events) this.deps.onEvent?.({ id: entry.id, accountId: entry.accountId, seq: entry.seq }, event);
    if (t.recheck === 'immediate') this.wheel.schedule(wheelId('probe', entry.id), now);
  }

  private runtimeOf(entry: Scheduled, synced: ProbeResult | null) {
    const s = entry.state;
    return {
      status: s.status,
      consecutiveFailures: s.consecutiveFailures,
      degraded: s.degraded,
      lastError: s.lastError,
      lastStatusChange: s.lastStatusChange,
      probesTotal: entry.probesTotal,
      probesUp: entry.probesUp,
      ssl: entry.ssl,
      regions: s.regions,
      errorAlerted: s.errorAlerted,
      sslAlerts: s.ssl,
      // The probe's start, as its history entry's createdAt, so the two can be matched.
      sync: synced ? { lastChecked: synced.startedAt, lastResponseTime: synced.responseTime, lastStatusCode: synced.statusCode } : null,
    };
  }
}

function stateDiffers(a: MonitorState, b: MonitorState): boolean {
  return (
    a.consecutiveFailures !== b.consecutiveFailures ||
    a.degraded !== b.degraded ||
    a.lastError !== b.lastError ||
    a.errorAlerted !== b.errorAlerted ||
    a.ssl !== b.ssl ||
    a.regions.primary !== b.regions.primary ||
    a.regions.regionsTotal !== b.regions.regionsTotal ||
    a.regions.regionsDown !== b.regions.regionsDown ||
    a.regions.confirmedDown !== b.regions.confirmedDown
  );
}
