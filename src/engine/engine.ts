import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { CheckEvents, CheckObserver } from '../domain/check-observer.js';
import type { Clock } from '../domain/clock.js';
import type { Check } from '../domain/records.js';
import { LiveCheck, probePolicy } from '../monitor/live-check.js';
import type { LiveChecks } from '../monitor/live-checks.js';
import { NoPeer, type PeerRechecker, type PeerVerdict } from '../monitor/peer.js';
import type { Recorder } from '../monitor/recorder.js';
import type { Store } from '../store/store.js';
import type { NodeCursorWrite } from '../store/writes.js';
import { intern, intervalMs, isProbeType, probeTask } from './check-task.js';
import { CheckWheel } from './check-wheel.js';
import type { ProbeDispatcher } from './dispatcher.js';
import type { ProbeResult, ProbeTask } from '../domain/probe-types.js';
import { followingDue, nextDue } from './timing-wheel.js';
import { startWheelDriver, strideFor, type WheelDriver } from './wheel-driver.js';
import { CapacityMonitor, type CapacityReport } from './capacity.js';
import { Histogram } from '../domain/histogram.js';
import type { PrivateRefusal } from '../domain/outbound-policy.js';
import { OutboundRules } from '../store/outbound-rules.js';
import { FreshVerdicts } from './fresh-verdicts.js';
import type { MonitorStatus } from '../domain/events.js';

/** Slack on a probe's own timeout for a verdict asked now (a node's round trip, the writer). */
const VERDICT_SLACK_MS = 3_000;

/** One scheduled check: its live state (the recorder's) and what probing needs, kept small. */
class Scheduled extends LiveCheck {
  inFlight = false;
  /** Start of the newest result applied to the state: an older one never moves it backwards. */
  lastResultAt: number;

  constructor(
    check: Check,
    accountId: string,
    previous: Scheduled | undefined,
    now: number,
    readonly intervalMs: number,
    readonly task: ProbeTask,
    /** The check's primary region: its override, else the central's. */
    readonly region: string,
  ) {
    super(check, probePolicy(check), accountId, previous, now);
    this.countersWrittenAt = now;
    this.lastResultAt = previous?.lastResultAt ?? 0;
  }
}

/**
 * Where a check's probes run (regional prober nodes). A check whose primary region is served
 * by a connected node is probed there and its results arrive through `recordRemote`; the
 * engine keeps it on its wheel so it can take over the moment the region goes dark.
 */
export interface Placement {
  probesHere(region: string): boolean;
  /** An immediate re-check of a check probed on a node: that node runs it now. */
  runNow(checkId: string): void;
}

/**
 * Which checks this central probes and records when several centrals share the store: its
 * leased share, answered from memory (the lease job keeps it current). Absent on a single
 * server, which owns every check.
 */
export interface Ownership {
  owns(checkId: string): boolean;
}

/** Called as a node's result is recorded: the node's outbox cursor to write with it. */
export type CursorFor = () => NodeCursorWrite;

/**
 * Several centrals: a node's result for a check another central owns goes to the store's inbox
 * for its owner, the node's outbox cursor moving in the same write.
 */
export type HandOver = (checkId: string, result: ProbeResult, region: string, cursor: NodeCursorWrite) => void;

/** A node's result another central received, from the inbox: it leaves it with the write that records it. */
export interface ForwardedResult {
  seq: number;
  checkId: string;
  result: ProbeResult;
  region: string;
  receivedBy: string;
}

export interface EngineDeps {
  store: Pick<Store, 'checks' | 'accounts'>;
  recorder: Recorder;
  /** The registry the engine keeps its probe checks' live entries in. */
  live: LiveChecks;
  dispatcher: ProbeDispatcher;
  clock: Clock;
  config: Config;
  log: Logger;
  /** A second region that re-checks failures before they count (none on a single node). */
  peer?: PeerRechecker;
  /** Which regions' checks run here (all of them without prober nodes). */
  placement?: Placement;
  /** Several centrals: the checks this one owns (a single server owns all and passes none). */
  ownership?: Ownership;
  /** Several centrals: where a node's result for a check another central owns goes. */
  handOver?: HandOver;
  /** The checks service: the engine follows its mutations (none in benchmarks that schedule by hand). */
  checks?: CheckEvents;
  /** Tests drive the wheel themselves; production ticks on real time. */
  autoStart?: boolean;
  /** The accounts' outbound rules (shared with the alerts and the nodes' assignment; built here when absent). */
  outbound?: OutboundRules;
}

/**
 * Schedules every enabled check on the timing wheel, sends due probes to the dispatcher and
 * hands each result to the recorder (state machine, one write, events). Nothing here waits on
 * an HTTP client, and no request waits on a probe.
 */
export class Engine implements CheckObserver {
  /** The one wheel: probes here, heartbeat deadlines and domain lookups by their owners. */
  readonly wheel: CheckWheel;
  private readonly outbound: OutboundRules;
  /** Checks waiting for the store to say which outbound rule their account follows. */
  private readonly adding = new Map<string, object>();
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
  private readonly load: CapacityMonitor;
  private readonly verdicts = new FreshVerdicts();
  private idleWaiters: Array<() => void> = [];
  /** Set while stop() waits for running probes: called as each one settles. */
  private probeSettled: (() => void) | null = null;
  /** The probe rate the wheel's stride follows: probes fired per second, sampled about every second. */
  private readonly rate = { at: 0, fired: 0, perSecond: 0 };

  constructor(private readonly deps: EngineDeps) {
    this.wheel = new CheckWheel(deps.clock, 100);
    this.wheel.handle('probe', (checkId, dueAt) => this.fire(checkId, dueAt));
    this.load = new CapacityMonitor(deps.log, () => deps.dispatcher.queued, deps.clock.now());
    this.region = deps.config.region;
    this.peer = deps.peer ?? new NoPeer();
    this.outbound = deps.outbound ?? new OutboundRules(deps.config, deps.store.accounts);
    deps.checks?.observe(this);
  }

  /** Loads every enabled check, each at its stable phase: a restart makes no thundering herd. */
  async start(): Promise<void> {
    const now = this.deps.clock.now();
    await this.deps.store.checks.forEachEnabled((check) => this.add(check, false, now));
    if (this.deps.autoStart !== false) {
      this.driver = startWheelDriver({
        wheel: this.wheel.timingWheel,
        clock: this.deps.clock,
        fire: this.wheel.fire,
        onError: (err) => this.deps.log.error({ err }, 'scheduler error'),
        onTick: (lateMs) => {
          this.metrics.tickDelay.record(lateMs);
          this.metrics.lastTickAt = this.deps.clock.now();
        },
        strideMs: () => this.strideMs(),
      });
    }
  }

  /** How far apart wheel ticks go at the current probe rate (a quiet instance wakes less often). */
  private strideMs(): number {
    const now = this.deps.clock.now();
    const rate = this.rate;
    if (now - rate.at >= 1_000) {
      rate.perSecond = rate.at === 0 ? 0 : ((this.metrics.fired - rate.fired) * 1_000) / (now - rate.at);
      rate.at = now;
      rate.fired = this.metrics.fired;
    }
    return strideFor(rate.perSecond, this.wheel.timingWheel.tickMs);
  }

  /** How late probes start, how many wait, due against completed rates: is probing past capacity? */
  get capacity(): CapacityReport {
    return this.load.report();
  }

  /** Probes whose results are not recorded yet (shutdown waits for them, bounded). */
  get inFlight(): number {
    return this.probing;
  }

  async stop(graceMs = 5_000): Promise<void> {
    this.driver?.stop();
    this.driver = null;
    // Running probes finish and are recorded (each settling wakes this); queued ones are dropped by close().
    const grace = new AbortController();
    const graceOver = sleep(graceMs, 'over' as const, { signal: grace.signal }).catch(() => 'over' as const);
    try {
      while (this.probing > this.deps.dispatcher.queued) {
        const settled = new Promise<'settled'>((resolve) => { this.probeSettled = () => resolve('settled'); });
        if ((await Promise.race([settled, graceOver])) === 'over') break;
      }
    } finally {
      this.probeSettled = null;
      grace.abort();
    }
    this.closing = true;
    this.verdicts.clear();
    await this.deps.dispatcher.close();
  }

  /** Advances the wheel to the clock (tests with a manual clock call this). */
  tick(): void {
    this.metrics.lastTickAt = this.deps.clock.now();
    this.wheel.advance(this.deps.clock.now());
  }

  /** Resolves once no probe is in flight and every result so far is recorded and written (tests wait on it after a tick). */
  async idle(): Promise<void> {
    if (this.probing > 0) await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
    await this.deps.recorder.idle();
  }

  /**
   * Probes the check now and resolves with its status once a result settles it (down, or no
   * failure being confirmed: a failure below the threshold is probed again at once, as many
   * times as the check's confirmation takes); null when the check is not probed by this
   * central (not a probe check, paused, another central's) or no result settles it in time.
   */
  probeNow(checkId: string): Promise<MonitorStatus | null> | null {
    const entry = this.scheduledEntry(checkId);
    if (!entry || this.closing || (this.deps.ownership && !this.deps.ownership.owns(checkId))) return null;
    const verdict = this.verdicts.wait(checkId, this.verdictLimitMs(checkId), entry.policy.downConfirmationAttempts);
    this.runNow(entry);
    return verdict;
  }

  /** How long a verdict asked now may take: a probe and its timeout per confirmation attempt (a default for checks not probed here). */
  verdictLimitMs(checkId: string): number {
    const entry = this.scheduledEntry(checkId);
    if (!entry) return VERDICT_SLACK_MS;
    return entry.policy.downConfirmationAttempts * (entry.task.timeoutMs + VERDICT_SLACK_MS);
  }

  /** A probe of the check at once: here on the wheel, or by the node that probes it. */
  private runNow(entry: Scheduled): void {
    if (this.deps.placement && !this.deps.placement.probesHere(entry.region)) this.deps.placement.runNow(entry.id);
    else this.wheel.schedule('probe', entry.id, this.deps.clock.now());
  }

  /** After a result is recorded: someone waiting for the check's verdict is answered, or has it probed again now. */
  private answerVerdicts(entry: Scheduled, recheck: 'immediate' | 'none'): void {
    if (this.verdicts.recorded(entry.id, entry.state) && recheck !== 'immediate') this.runNow(entry);
  }

  checkSaved(check: Check, runNow: boolean): void {
    if (check.disabled || !isProbeType(check.type)) {
      this.checkDeleted(check);
      return;
    }
    this.add(check, runNow, this.deps.clock.now());
  }

  checkDeleted(check: Pick<Check, 'id'>): void {
    this.adding.delete(check.id);
    if (this.scheduledEntry(check.id)) this.deps.live.delete(check.id);
    this.wheel.cancel('probe', check.id);
  }

  /** The check's entry when the engine schedules it (a heartbeat's or a domain check's is not the engine's). */
  private scheduledEntry(checkId: string): Scheduled | undefined {
    const entry = this.deps.live.get(checkId);
    return entry instanceof Scheduled ? entry : undefined;
  }

  /**
   * Schedules the check: at once when its account's outbound rule is known
   * (cached, or a store that answers at once); otherwise once the store has answered, unless a
   * later save or a delete of the check came first.
   */
  private add(check: Check, runNow: boolean, now: number): void {
    if (!isProbeType(check.type) || check.disabled) return;
    const rule = this.outbound.forAccount(check.accountId);
    if (!(rule instanceof Promise)) return this.schedule(check, rule, runNow, now);
    const mark = {};
    this.adding.set(check.id, mark);
    rule.then((r) => {
      if (this.adding.get(check.id) !== mark) return;
      this.adding.delete(check.id);
      this.schedule(check, r, runNow, this.deps.clock.now());
    }, (err: unknown) => this.deps.log.error({ err, checkId: check.id }, 'check not scheduled'));
  }

  private schedule(check: Check, rule: PrivateRefusal | null, runNow: boolean, now: number): void {
    this.adding.delete(check.id);
    const task = probeTask(check, rule);
    const entry = new Scheduled(
      check, intern(check.accountId), this.scheduledEntry(check.id), now, intervalMs(check), task, check.regionOverride ?? this.region,
    );
    this.deps.live.set(entry);
    this.wheel.schedule('probe', check.id, runNow ? now : nextDue(check.id, entry.intervalMs, now));
  }

  private fire(checkId: string, dueAt: number): void {
    const entry = this.scheduledEntry(checkId);
    if (!entry) return;
    const now = this.deps.clock.now();
    this.wheel.schedule('probe', checkId, followingDue(entry.id, entry.intervalMs, dueAt, now));
    // Probed by a node of its region: kept on the wheel for the moment the region goes dark.
    if (this.deps.placement && !this.deps.placement.probesHere(entry.region)) return;
    // Another central's: kept on the wheel for the moment this one takes it over.
    if (this.deps.ownership && !this.deps.ownership.owns(checkId)) return;
    this.metrics.fired++;
    this.metrics.lag.record(Math.max(0, now - dueAt));
    this.load.due(now, entry.inFlight);
    if (entry.inFlight) {
      this.metrics.skippedInFlight++; // the previous probe is still running: skip, never pile up
      return;
    }
    entry.inFlight = true;
    this.probing++;
    this.deps.dispatcher.run(entry.task).then(
      async (result) => this.record(entry, result, this.region, result.ok ? null : await this.peer.recheck(entry.task, this.region), dueAt),
      (err: unknown) => this.deps.log.error({ err, checkId: entry.id }, 'probe dispatch failed'),
    ).finally(() => {
      entry.inFlight = false;
      this.probing--;
      this.probeSettled?.();
      if (this.probing === 0 && this.idleWaiters.length > 0) {
        const waiters = this.idleWaiters;
        this.idleWaiters = [];
        for (const resolve of waiters) resolve();
      }
    });
  }

  /**
   * A result a prober node of `region` sent. A fresh failure is re-checked by a peer first (a
   * replayed one is not: the target's state then says nothing about its state now). A result
   * older than the newest one applied goes into history and rollups only. `cursor` is asked
   * once, as the result is recorded or dropped, and its write joins the result's. Recorded at
   * once (null), or a promise when a peer must answer first: most results make no promise.
   */
  recordRemote(checkId: string, result: ProbeResult, region: string, fresh: boolean, cursor: CursorFor): Promise<void> | null {
    const entry = this.scheduledEntry(checkId);
    if (!entry || this.closing) {
      this.deps.recorder.write(cursor());
      return null;
    }
    if (this.deps.handOver && this.deps.ownership && !this.deps.ownership.owns(checkId)) {
      this.deps.handOver(checkId, result, region, cursor());
      return null;
    }
    if (result.ok || !fresh || result.startedAt < entry.lastResultAt) {
      this.record(entry, result, region, null, null, cursor);
      return null;
    }
    return this.peer.recheck(entry.task, region).then((peer) => this.record(entry, result, region, peer, null, cursor));
  }

  /**
   * A node's result another central received for a check this one owns (several centrals),
   * recorded as `recordRemote` records it (peer re-check, late-result rule), leaving the inbox
   * with its write; resolves once that write is durable. One whose check is no longer probed
   * here leaves the inbox unrecorded; one of a check this central does not own (any more) stays
   * there for its owner.
   */
  recordForwarded(item: ForwardedResult, fresh: boolean): Promise<void> {
    if (this.closing || this.adding.has(item.checkId) || (this.deps.ownership && !this.deps.ownership.owns(item.checkId))) return Promise.resolve();
    const entry = this.scheduledEntry(item.checkId);
    if (!entry) return this.deps.recorder.discard(item.checkId, item.seq, this.deps.clock.now());
    const { result } = item;
    if (result.ok || !fresh || result.startedAt < entry.lastResultAt) return this.recordFromInbox(entry, item, null);
    return this.peer.recheck(entry.task, item.region).then((peer) => this.recordFromInbox(entry, item, peer));
  }

  private recordFromInbox(entry: Scheduled, item: ForwardedResult, peer: PeerVerdict | null): Promise<void> {
    const now = this.deps.clock.now();
    if (this.closing || (this.deps.ownership && !this.deps.ownership.owns(entry.id))) return Promise.resolve();
    if (this.deps.live.get(entry.id) !== entry) return this.deps.recorder.discard(entry.id, item.seq, now);
    this.metrics.completed++;
    const late = item.result.startedAt < entry.lastResultAt;
    if (!late) entry.lastResultAt = item.result.startedAt;
    const recorded = this.deps.recorder.recordDurably(entry, {
      kind: 'probe', result: item.result, region: item.region, peer, late, inboxSeq: item.seq, receivedBy: item.receivedBy,
    }, now);
    // The node that probes it is connected to another central: placement relays the re-check there.
    return recorded.then((recheck) => {
      if (recheck === 'immediate') this.deps.placement?.runNow(entry.id);
      if (this.verdicts.size !== 0 && !late) this.answerVerdicts(entry, recheck);
    });
  }

  /** `dueAt` is the wheel's due time of a probe run here (null for a node's result). */
  private record(entry: Scheduled, result: ProbeResult, region: string, peer: PeerVerdict | null, dueAt: number | null, cursor?: CursorFor): void {
    this.metrics.completed++;
    if (dueAt !== null) this.load.completed(dueAt, result.startedAt, this.deps.clock.now());
    // A check deleted, paused or changed while its probe ran: this result is for a stale entry.
    if (this.closing || this.deps.live.get(entry.id) !== entry) {
      if (cursor) this.deps.recorder.write(cursor());
      return;
    }
    // A check this central no longer owns (its lease ran out, or it was handed over): not this
    // central's to record; a node's result goes to its owner.
    if (this.deps.ownership && !this.deps.ownership.owns(entry.id)) {
      if (cursor && this.deps.handOver) this.deps.handOver(entry.id, result, region, cursor());
      else if (cursor) this.deps.recorder.write(cursor());
      return;
    }
    const now = this.deps.clock.now();
    const late = result.startedAt < entry.lastResultAt;
    if (!late) entry.lastResultAt = result.startedAt;
    const recheck = this.deps.recorder.record(entry, { kind: 'probe', result, region, peer, late, nodeCursor: cursor?.() ?? null }, now);
    if (this.verdicts.size !== 0 && !late) this.answerVerdicts(entry, recheck);
    if (recheck !== 'immediate') return;
    if (region === this.region) this.wheel.schedule('probe', entry.id, now);
    else this.deps.placement?.runNow(entry.id);
  }
}
