import type { AlertEvent, MonitorStatus, Regions } from '../domain/events.js';
import type { DomainInfo, ProbeResult } from '../domain/probe-types.js';
import type { DomainMemory } from '../store/alert-store.js';
import type { BatchWriter } from '../store/batch-writer.js';
import type { HistoryResultInput, RuntimeWrite } from '../store/store.js';
import type { NodeCursorWrite, ObservationWrite, PingInboxWrite, WriteRecord } from '../store/writes.js';
import type { OutboxEvent } from '../store/alert-outbox.js';
import { newId } from '../domain/secrets.js';
import { domainStep, type DomainEventType } from './domain-expiry.js';
import type { LiveCheck, LiveSnapshot } from './live-check.js';
import { inMaintenance, takeLapsedMaintenance } from './maintenance.js';
import { transition, type MonitorInput, type MonitorPolicy, type MonitorState, type ProbeInput, type Recheck } from './state-machine.js';

/** Copies what an observation's write moves in a live entry (no allocation: this runs per probe and ping). */
function copySnapshot(to: LiveSnapshot, from: LiveSnapshot): LiveSnapshot {
  to.state = from.state;
  to.probesTotal = from.probesTotal;
  to.probesUp = from.probesUp;
  to.ssl = from.ssl;
  to.lastSyncedAt = from.lastSyncedAt;
  to.countersWrittenAt = from.countersWrittenAt;
  return to;
}

const emptySnapshot = (): LiveSnapshot => ({ state: null!, probesTotal: 0, probesUp: 0, ssl: null, lastSyncedAt: 0, countersWrittenAt: 0 });

/**
 * Where transitions go: the alert pipeline and the status feed subscribe. `outboxId`: the
 * event's row in the alert outbox, written with the state change (null when no sink routes alerts).
 */
export type EventSink = (check: { id: string; accountId: string; seq: number }, event: AlertEvent, outboxId?: string | null) => void;
/**
 * The check's status changed (alert-worthy or not, e.g. pending to up), it became or stopped
 * being slow (`degraded`), or a ping arrived that changed neither: live views refresh the
 * check; rendered pages only need the first.
 */
export type ChangeSink = (check: { id: string; accountId: string }, what: 'status' | 'degraded' | 'ping') => void;

/** A probe's result, run here or by a prober node (its region), with the peer's re-check of a failure. */
export interface ProbeObservation extends ProbeInput {
  /** Older than a result already applied (a prober node's replay): history, counters and rollups only. */
  late?: boolean;
  /** A prober node's result: its outbox cursor is written in the same transaction (exactly once). */
  nodeCursor?: NodeCursorWrite | null;
  /** A node's result another central received (several centrals): it leaves the inbox with this write. */
  inboxSeq?: number | null;
  /** That central, kept as the result's `central` (who took it in), as a forwarded ping's is. */
  receivedBy?: string;
}

/** A heartbeat ping: `start` is a job starting (neither success nor failure). */
export interface PingObservation {
  kind: 'ping';
  signal: 'ping' | 'fail' | 'start';
  error: string | null;
  details: Record<string, unknown>;
  region: string | null;
  /** Pings to a paused check are kept in history and counted, but change no state. */
  paused: boolean;
  /** A ping another central received (several centrals): it leaves the inbox with this write. */
  inboxSeq?: number | null;
}

/** A heartbeat's deadline passed with no ping. */
export interface MissedObservation {
  kind: 'missed';
  error: string;
  region: string | null;
}

/**
 * An RDAP lookup of the check's domain: `info` when it answered, else `error`. A `domain` check
 * is up while its registration runs and down once it has expired; a website check (domain
 * intelligence) only learns its `domain` field and raises the expiry events.
 */
export interface DomainObservation {
  kind: 'domain';
  checkType: 'domain' | 'website';
  info: DomainInfo | null;
  error: string | null;
  /** How long the lookup took, ms (its response time). */
  ms: number;
  /** The expiry memory of the domain this lookup was for (null: none yet, or another domain's). */
  memory: DomainMemory | null;
  region: string | null;
}

export type Observation = ProbeObservation | PingObservation | MissedObservation | DomainObservation;

/** Timing fields are synced on status changes and at least this often (spec 2.2 rule 2). */
export const SYNC_EVERY_MS = 24 * 60 * 60 * 1000;
/** The uptime counters reach the database at least this often even when nothing else changes. */
export const COUNTERS_EVERY_MS = 10 * 60 * 1000;

interface Outcome {
  write: ObservationWrite | null;
  events: AlertEvent[];
  recheck: Recheck;
}

const NOTHING: Outcome = Object.freeze({ write: null, events: Object.freeze([]) as unknown as AlertEvent[], recheck: 'none' });

/** The live entry an observation write moved, and the write's number on it, kept on the write for its batch's fate. */
const MOVED = Symbol('moved');
const NTH = Symbol('nth');
type Followed = ObservationWrite & { [MOVED]?: LiveCheck; [NTH]?: number };

/**
 * The one place that turns an observation of a check into its consequences (DESIGN: one
 * recorder): the pure state machine decides the new state, one typed write carries the result,
 * the runtime fields, the status log and the rollup sample to the batched writer, and the
 * events go to the sink. The engine, the heartbeat monitor and the domain monitor call it; none
 * builds writes by hand.
 */
export class Recorder {
  private readonly eventSinks: EventSink[] = [];
  private readonly changeSinks: ChangeSink[] = [];
  /** Whether writes are followed until their batch's fate is known (the writer reports it). */
  private readonly follows: boolean;
  /** The live entry as it was before the observation being recorded now (reused). */
  private readonly before: LiveSnapshot = emptySnapshot();
  /** Whether events go to the alert outbox (an alert pipeline listens). */
  private outbox = false;

  constructor(
    private readonly deps: {
      writer: Pick<BatchWriter, 'submit' | 'commit' | 'drained'> & Partial<Pick<BatchWriter, 'afterEachCommit'>>;
      /** Several centrals: this central's name, kept in each result's details (`central`) to show who probed it. */
      central?: string;
    },
  ) {
    this.follows = deps.writer.afterEachCommit !== undefined;
    deps.writer.afterEachCommit?.((batch, failed) => this.settled(batch, failed));
  }

  /** A result's row with the central that made it (several centrals only; a forwarded ping keeps its receiver's). */
  private stamp(row: HistoryResultInput, receivedBy?: string): HistoryResultInput {
    const central = receivedBy ?? this.deps.central;
    if (central === undefined || (row.meta !== null && 'central' in row.meta)) return row;
    return { ...row, meta: { ...row.meta, central } };
  }

  /**
   * Subscribes to every event the state machine or the domain rules raise. A sink that routes
   * alerts (`outbox`) has every event kept in the alert outbox with its state change, so an
   * event its process never routes (it died first) is still routed by a sweep.
   */
  onEvent(sink: EventSink, options?: { outbox?: boolean }): void {
    this.eventSinks.push(sink);
    if (options?.outbox) this.outbox = true;
  }

  onChange(sink: ChangeSink): void {
    this.changeSinks.push(sink);
  }

  /** Resolves once every write recorded so far is applied (tests wait on it). */
  idle(): Promise<void> {
    return this.deps.writer.drained();
  }

  /** Records the observation (its write is submitted, its events raised); says whether to probe again now. */
  record(live: LiveCheck, obs: Observation, now: number): Recheck {
    const degraded = live.state.degraded;
    if (this.follows) copySnapshot(this.before, live);
    const out = this.outcome(live, obs, now);
    const kept = out.events.length > 0 ? this.keep(live, out, now) : null;
    if (out.write) {
      this.follow(live, out.write);
      this.deps.writer.submit(out.write);
    }
    this.raise(live, out.events, kept);
    this.changed(live, obs, out, degraded);
    return out.recheck;
  }

  /** The same, resolving once the write is durable (with whether to probe again now); events follow the commit (a ping's acknowledgement). */
  recordDurably(live: LiveCheck, obs: Observation, now: number): Promise<Recheck> {
    const degraded = live.state.degraded;
    if (this.follows) copySnapshot(this.before, live);
    const out = this.outcome(live, obs, now);
    const kept = out.events.length > 0 ? this.keep(live, out, now) : null;
    if (out.write) this.follow(live, out.write);
    const followed = (): void => {
      this.raise(live, out.events, kept);
      this.changed(live, obs, out, degraded);
    };
    if (out.write) {
      return this.deps.writer.commit(out.write).then(() => {
        followed();
        return out.recheck;
      });
    }
    followed();
    return Promise.resolve(out.recheck);
  }

  private follow(live: LiveCheck, write: ObservationWrite): void {
    if (!this.follows) return;
    // On the write itself, not in a map: only a batch that fails reads it back.
    (write as Followed)[MOVED] = live;
    (write as Followed)[NTH] = ++live.latestWrite;
    live.beforeUnsettled = copySnapshot(live.beforeUnsettled ?? emptySnapshot(), this.before);
  }

  /**
   * A batch's fate is known. A live entry moved on when its observation was recorded (the next
   * result's transition needs it at once); for a write that did not commit, the entry moves
   * back to where it was before that write, so memory holds only what is durable, unless a
   * later write of the check was already submitted (it carries the whole runtime state, and the
   * check goes on from there). Either way the state-change log is verified on the next write.
   */
  private settled(batch: readonly WriteRecord[], failed: ReadonlyMap<WriteRecord, unknown> | 'all'): void {
    // A committed write needs nothing: the entry already holds what it wrote.
    if (failed !== 'all' && failed.size === 0) return;
    for (const record of failed === 'all' ? batch : failed.keys()) {
      if (record.kind !== 'observation') continue;
      const live = (record as Followed)[MOVED];
      if (live === undefined) continue;
      if (live.latestWrite === (record as Followed)[NTH]) copySnapshot(live, live.beforeUnsettled!);
      live.verifyLog = true;
    }
  }

  private changed(live: LiveCheck, obs: Observation, out: Outcome, degradedBefore: boolean): void {
    if (out.write?.kind !== 'observation' || this.changeSinks.length === 0) return;
    const what = out.write.statusChange !== null ? 'status'
      : live.state.degraded !== degradedBefore ? 'degraded'
      : obs.kind === 'ping' ? 'ping' : null;
    if (what === null) return;
    const ref = { id: live.id, accountId: live.accountId };
    for (const sink of this.changeSinks) sink(ref, what);
  }

  /** The check's `domain` field is cleared: what was learned was of another domain, or the check is no longer looked up. */
  forgetDomain(checkId: string): void {
    this.deps.writer.submit({ kind: 'domain-info', checkId, domain: null });
  }

  /** A write that is no observation but must keep its place in line (a prober node's cursor, a node's result handed to another central). */
  write(record: NodeCursorWrite | PingInboxWrite): void {
    this.deps.writer.submit(record);
  }

  /** An inbox entry nothing records (its check is no longer probed here): it leaves the inbox alone, resolving once durable. */
  discard(checkId: string, inboxSeq: number, now: number): Promise<void> {
    return this.deps.writer.commit({
      kind: 'observation', checkId, checkSeq: 0, at: now, result: null, event: null, sample: null, sampleAt: now, runtime: null,
      statusChange: null, verifyStatus: null, endMaintenance: null, domain: null, domainMemory: null, inboxSeq,
    });
  }

  /** The same, resolving once it and everything submitted before it is durable (a node's acknowledgement). */
  writeDurably(record: NodeCursorWrite): Promise<void> {
    return this.deps.writer.commit(record);
  }

  /**
   * The outcome's events, each with an id, onto its write (the alert outbox, same transaction as
   * the state change); null when no alert pipeline listens. Only outcomes with events come here.
   */
  private keep(live: LiveCheck, out: Outcome, now: number): OutboxEvent[] | null {
    if (!this.outbox || out.write === null) return null;
    const kept = out.events.map((event) => ({ id: newId('evt'), checkId: live.id, accountId: live.accountId, event, createdAt: now }));
    out.write.outbox = kept;
    return kept;
  }

  private raise(live: LiveCheck, events: readonly AlertEvent[], kept: readonly OutboxEvent[] | null): void {
    if (this.eventSinks.length === 0 || events.length === 0) return;
    const ref = { id: live.id, accountId: live.accountId, seq: live.seq };
    for (let i = 0; i < events.length; i++) for (const sink of this.eventSinks) sink(ref, events[i]!, kept?.[i]!.id ?? null);
  }

  private outcome(live: LiveCheck, obs: Observation, now: number): Outcome {
    switch (obs.kind) {
      case 'probe':
        if (obs.late) return this.lateProbe(live, obs, now);
        // A probe observation is the state machine's probe input as it is.
        return this.stateful(live, obs, obs, now);
      case 'ping':
        if (obs.signal === 'start' || obs.paused) return this.unstateful(live, obs, now);
        return this.stateful(live, { kind: 'heartbeat', signal: obs.signal, error: obs.error, region: obs.region }, obs, now);
      case 'missed':
        return this.stateful(live, { kind: 'heartbeat', signal: 'missed', error: obs.error, region: obs.region }, obs, now);
      case 'domain':
        return this.domain(live, obs, now);
    }
  }

  /** Through the state machine: probes, pings and missed deadlines. */
  private stateful(live: LiveCheck, input: MonitorInput, obs: ProbeObservation | PingObservation | MissedObservation, now: number): Outcome {
    const lapsed = takeLapsedMaintenance(live, now);
    const before = live.state;
    const t = transition(before, policyAt(live, now), input, now);
    // A missed deadline that changes nothing (pending, maintenance) leaves no trace.
    if (obs.kind === 'missed' && t.state === before && lapsed === null) return NOTHING;
    live.state = t.state;

    let result: HistoryResultInput | null = null;
    let ok = false;
    let responseTime: number | null = null;
    let statusCode: number | null = null;
    let sslChanged = false;
    if (obs.kind === 'probe') {
      const r = obs.result;
      ok = r.ok;
      responseTime = r.responseTime;
      statusCode = r.statusCode;
      sslChanged = r.ssl !== null && (r.ssl.fingerprint !== live.ssl?.fingerprint || r.ssl.valid !== live.ssl?.valid);
      if (r.ssl) live.ssl = r.ssl;
      result = this.stamp(probeRow(live.seq, r, obs.region), obs.receivedBy);
    } else if (obs.kind === 'ping') {
      ok = obs.signal === 'ping';
      result = this.stamp({
        checkSeq: live.seq, at: now, kind: 'ping' as const, status: ok ? 'up' as const : 'down' as const, statusCode: null,
        responseTime: null, timing: null, error: obs.error, region: obs.region, snippet: null, meta: obs.details,
      });
    }
    const statusChanged = before.status !== t.state.status;
    // The probe's start, as its history entry's createdAt, so the two can be matched.
    const at = obs.kind === 'probe' ? obs.result.startedAt : now;
    if (result) this.counted(live, ok, at, responseTime, obs.region);
    const runtime = this.runtime(live, before, statusChanged || sslChanged, now, { at, responseTime, statusCode });
    const verify = live.verifyLog;
    live.verifyLog = false;
    const write: ObservationWrite = {
      kind: 'observation', checkId: live.id, checkSeq: live.seq, at: now,
      result,
      // No ping is the result: the history shows when and why the check went down.
      event: obs.kind === 'missed' && statusChanged
        ? { checkSeq: live.seq, at: now, status: t.state.status, region: obs.region, meta: { event: 'missed', error: t.state.lastError } }
        : null,
      sample: result === null ? null : obs.kind === 'probe' ? obs.result : { ok, responseTime: null, timing: null },
      sampleAt: at,
      runtime,
      statusChange: statusChanged ? t.state.status : null,
      verifyStatus: verify ? t.state.status : null,
      endMaintenance: lapsed,
      domain: null,
      domainMemory: null,
      peerResult: obs.kind === 'probe' && obs.peer ? probeRow(live.seq, obs.peer.result, obs.peer.region) : null,
      nodeCursor: obs.kind === 'probe' ? obs.nodeCursor ?? null : null,
      inboxSeq: obs.kind === 'ping' || obs.kind === 'probe' ? obs.inboxSeq ?? null : null,
      outbox: null,
    };
    return { write, events: t.events, recheck: t.recheck };
  }

  /** A result older than one already applied: it goes into history and rollups at its own time and moves no state. */
  private lateProbe(live: LiveCheck, obs: ProbeObservation, now: number): Outcome {
    live.probesTotal++;
    if (obs.result.ok) live.probesUp++;
    const write: ObservationWrite = {
      kind: 'observation', checkId: live.id, checkSeq: live.seq, at: now,
      result: this.stamp(probeRow(live.seq, obs.result, obs.region), obs.receivedBy), event: null, sample: obs.result, sampleAt: obs.result.startedAt,
      runtime: null, statusChange: null, verifyStatus: null, endMaintenance: null, domain: null, domainMemory: null,
      peerResult: null, nodeCursor: obs.nodeCursor ?? null, inboxSeq: obs.inboxSeq ?? null,
    };
    return { write, events: NOTHING.events, recheck: 'none' };
  }

  /** A job's start ping, or a ping to a paused check: history (and for results, counters and rollups) only. */
  private unstateful(live: LiveCheck, obs: PingObservation, now: number): Outcome {
    const start = obs.signal === 'start';
    const ok = obs.signal === 'ping';
    if (!start) this.counted(live, ok, now, null, obs.region);
    const write: ObservationWrite = {
      kind: 'observation', checkId: live.id, checkSeq: live.seq, at: now,
      result: this.stamp({
        checkSeq: live.seq, at: now, kind: 'ping', status: start ? 'start' : ok ? 'up' : 'down', statusCode: null,
        responseTime: null, timing: null, error: obs.error, region: obs.region, snippet: null, meta: obs.details,
      }),
      event: null,
      sample: start ? null : { ok, responseTime: null, timing: null },
      sampleAt: now,
      runtime: null,
      statusChange: null,
      verifyStatus: null,
      endMaintenance: null,
      domain: null,
      domainMemory: null,
      inboxSeq: obs.inboxSeq ?? null,
    };
    return { write, events: NOTHING.events, recheck: 'none' };
  }

  /** Domain rules: expiry events for both check types; a `domain` check's status follows the registration. */
  private domain(live: LiveCheck, obs: DomainObservation, now: number): Outcome {
    const lapsed = takeLapsedMaintenance(live, now);
    const maintenance = inMaintenance(live, now);
    const info = obs.info;
    const expiresAt = info?.expiresAt ? Date.parse(info.expiresAt) : null;
    const memory = obs.memory;
    let nextMemory: DomainMemory = {
      checkId: live.id, expiresAt: memory?.expiresAt ?? null, alerted: memory?.alerted ?? 'ok', checkedAt: now, lastError: info ? null : obs.error,
    };
    let found: DomainEventType[] = [];
    // Maintenance: nothing is armed, so what is still true afterwards alerts then (like the state machine).
    if (expiresAt !== null && !maintenance) {
      const step = domainStep(memory, expiresAt, now);
      nextMemory = { ...nextMemory, ...step.memory };
      found = step.events;
    }
    const before = live.state;
    const expired = expiresAt !== null && expiresAt <= now;
    const isDomainCheck = obs.checkType === 'domain';
    const status: MonitorStatus = isDomainCheck && info && !maintenance ? (expired ? 'down' : 'up') : before.status;
    const events = found.map((type) => domainEvent(type, before, status, info!, now, obs.region));
    const write: ObservationWrite = {
      kind: 'observation', checkId: live.id, checkSeq: live.seq, at: now,
      result: null, event: null, sample: null, sampleAt: now, runtime: null, statusChange: null, verifyStatus: null,
      endMaintenance: lapsed, domain: info, domainMemory: nextMemory,
    };
    if (!isDomainCheck) return { write, events, recheck: 'none' };

    // A `domain` check's lookup is its probe: history, counters, rollups and the record, like any result.
    const up = info !== null && !expired;
    const error = info === null ? obs.error : expired ? `Domain ${info.name} expired on ${info.expiresAt!.slice(0, 10)}` : null;
    const changed = status !== before.status;
    live.state = {
      ...before,
      status,
      consecutiveFailures: up ? 0 : before.consecutiveFailures + 1,
      degraded: false,
      lastError: status === 'down' ? error : null,
      lastStatusChange: changed ? now : before.lastStatusChange,
    };
    this.counted(live, up, now, obs.ms, obs.region);
    write.result = {
      checkSeq: live.seq, at: now, kind: 'probe', status: up ? 'up' : 'down', statusCode: null, responseTime: obs.ms,
      timing: null, error, region: obs.region, snippet: null, meta: info ? { domain: info } : null,
    };
    write.sample = { ok: up, responseTime: obs.ms, timing: null };
    write.runtime = this.runtime(live, before, true, now, { at: now, responseTime: obs.ms, statusCode: null }, true);
    write.statusChange = changed ? status : null;
    return { write, events, recheck: 'none' };
  }

  private counted(live: LiveCheck, ok: boolean, at: number, responseTime: number | null, region: string | null): void {
    live.probesTotal++;
    if (ok) live.probesUp++;
    const last = live.lastProbe;
    if (last === null) live.lastProbe = { at, status: ok ? 'up' : 'down', responseTime, region };
    else {
      // Updated in place: no allocation per result.
      last.at = at;
      last.status = ok ? 'up' : 'down';
      last.responseTime = responseTime;
      last.region = region;
    }
  }

  /**
   * The check row's runtime fields, when something visible changed or a write is due (most
   * results change nothing); the timing fields too on a status change and at least daily.
   */
  private runtime(
    live: LiveCheck, before: MonitorState, changed: boolean, now: number,
    synced: { at: number; responseTime: number | null; statusCode: number | null }, forceSync = false,
  ): RuntimeWrite | null {
    const s = live.state;
    const statusChanged = before.status !== s.status;
    const syncDue = forceSync || statusChanged || now - live.lastSyncedAt >= SYNC_EVERY_MS;
    const visible = changed || statusChanged || stateDiffers(before, s);
    const countersDue = now - live.countersWrittenAt >= COUNTERS_EVERY_MS;
    if (syncDue) live.lastSyncedAt = now;
    if (!visible && !syncDue && !countersDue) return null;
    live.countersWrittenAt = now;
    return {
      status: s.status,
      consecutiveFailures: s.consecutiveFailures,
      degraded: s.degraded,
      lastError: s.lastError,
      lastStatusChange: s.lastStatusChange,
      probesTotal: live.probesTotal,
      probesUp: live.probesUp,
      ssl: live.ssl,
      regions: s.regions,
      errorAlerted: s.errorAlerted,
      sslAlerts: s.ssl,
      sync: syncDue ? { lastChecked: synced.at, lastResponseTime: synced.responseTime, lastStatusCode: synced.statusCode } : null,
      statusChanged,
    };
  }
}

/** The check's policy now. Built field by field: a spread of the (frozen, shared) policy took V8's slow path on every result. */
function policyAt(live: LiveCheck, now: number): MonitorPolicy {
  const p = live.policy;
  return {
    downConfirmationAttempts: p.downConfirmationAttempts,
    immediateRecheckEnabled: p.immediateRecheckEnabled,
    responseTimeLimit: p.responseTimeLimit,
    maintenance: inMaintenance(live, now),
  };
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

function domainEvent(type: DomainEventType, before: MonitorState, status: MonitorStatus, info: DomainInfo, now: number, region: string | null): AlertEvent {
  const date = info.expiresAt?.slice(0, 10) ?? 'an unknown date';
  const error =
    type === 'domain_expired' ? `Domain ${info.name} expired on ${date}`
    : type === 'domain_expiring' ? `Domain ${info.name} expires on ${date}`
    : `Domain ${info.name} renewed until ${date}`;
  const regions: Regions = before.regions.regionsTotal > 0
    ? before.regions
    : { primary: region, peer: null, regionsTotal: 1, regionsDown: 0, confirmedDown: false };
  return { type, at: now, previousStatus: before.status, status, error, statusCode: null, responseTime: null, regions, ssl: null, domain: info };
}

/** A probe result as history keeps it. */
function probeRow(checkSeq: number, r: ProbeResult, region: string | null): HistoryResultInput {
  return {
    checkSeq, at: r.startedAt, kind: 'probe', status: r.ok ? 'up' : 'down', statusCode: r.statusCode, responseTime: r.responseTime,
    timing: r.timing, error: r.error, region, snippet: r.snippet, meta: r.location ? { location: r.location } : null,
  };
}
