import type { Cron } from 'croner';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { CheckEvents, CheckObserver } from '../domain/check-observer.js';
import type { Clock } from '../domain/clock.js';
import { cronSchedule, nextRunAfter } from '../domain/cron.js';
import type { Check } from '../domain/records.js';
import { DEADLINE_POLICY, LiveCheck } from '../monitor/live-check.js';
import type { LiveChecks } from '../monitor/live-checks.js';
import type { Recorder } from '../monitor/recorder.js';
import { missedPingError } from '../monitor/state-machine.js';
import type { Store } from '../store/store.js';
import { intervalMs } from './check-task.js';
import type { CheckWheel } from './check-wheel.js';
import type { Ownership } from './engine.js';
import { HeartbeatTokens } from './heartbeat-tokens.js';
import { hashSecret } from '../domain/secrets.js';
import { slotOf } from '../domain/leases.js';
import type { InboxPing, NewInboxPing } from '../store/ping-inbox.js';

/** What a ping said: a plain ping is success; `/start`, `/fail` and `/<exit code>` say more. */
export type PingSignal = { kind: 'success' } | { kind: 'start' } | { kind: 'fail' } | { kind: 'exit'; code: number };

export interface PingMetadata {
  status?: string;
  duration?: number;
  message?: string;
}

/** The answer to a ping whose token no check has (404): one settled promise, shared with the ping route. */
export const UNKNOWN_TOKEN: Promise<boolean> = Promise.resolve(false);
/** Uptime Kuma makes 32-character push tokens; anything much longer is not one worth a hash. */
const MAX_KUMA_TOKEN = 100;

/** The ping's history details: its metadata (spec 2.10), the signal, an exit code. */
function pingDetails(meta: PingMetadata, signal: PingSignal): Record<string, unknown> {
  // Field by field rather than a spread of `meta`, whose shape varies: a spread of it took V8's slow path.
  const details: Record<string, unknown> = {};
  if (meta.status !== undefined) details.status = meta.status;
  if (meta.message !== undefined) details.message = meta.message;
  if (meta.duration !== undefined) details.duration = meta.duration;
  details.signal = signal.kind;
  if (signal.kind === 'exit') details.exitCode = signal.code;
  return details;
}

/** A heartbeat check as the monitor follows it: its live state and its deadline's inputs. */
class WatchedHeartbeat extends LiveCheck {
  readonly disabled: boolean;
  readonly intervalMs: number;
  readonly graceMs: number;
  readonly cron: Cron | null;
  lastPingAt: number | null;
  /** When the running job reported `/start`, for the run's duration. */
  startedAt: number | null;
  /**
   * The deadline the wheel holds, if any. A ping only ever moves the deadline later, so it
   * leaves the entry where it is: the entry fires early and `missed` re-arms it then (a ping
   * costs no wheel work, however often it comes).
   */
  armedFor: number | null = null;

  constructor(check: Check, previous: WatchedHeartbeat | undefined, now: number, lastPingAt: number | null) {
    super(check, DEADLINE_POLICY, check.accountId, previous, now);
    this.disabled = check.disabled;
    this.intervalMs = intervalMs(check);
    this.graceMs = check.gracePeriodSeconds * 1000;
    this.cron = check.schedule ? cronSchedule(check.schedule, check.timezone) : null;
    this.lastPingAt = lastPingAt;
    this.startedAt = previous?.startedAt ?? null;
  }
}

export interface HeartbeatDeps {
  store: Pick<Store, 'checks' | 'history' | 'kumaImports'>;
  recorder: Recorder;
  /** The registry the monitor keeps its heartbeats' live entries in. */
  live: LiveChecks;
  wheel: CheckWheel;
  /** The checks service, whose mutations the monitor follows. */
  checks: CheckEvents;
  clock: Clock;
  config: Config;
  log: Logger;
  /** Several centrals: only the check's owner evaluates a missed deadline (it is armed again when this central takes the check over). */
  ownership?: Ownership;
  /** Several centrals: puts a ping for a check another central owns in the store's inbox, resolving once it is durable. */
  forward?: (ping: Omit<NewInboxPing, 'receivedBy'>) => Promise<void>;
}

/** How much later a deadline is evaluated with several centrals, for pings still on their way through the inbox. */
const INBOX_GRACE_MS = 2_000;

/**
 * Heartbeat checks: pings come in, the absence of one by the deadline marks the check down
 * (spec §3). Deadlines live on the engine's wheel (entries of kind `deadline`); every ping and
 * missed deadline goes to the recorder like a probe result; a ping is acknowledged only after
 * its group commit.
 */
/** Heartbeat pings (spec §3) as the ping route sends them; each answer comes once the ping is committed. */
export type Pings = Pick<HeartbeatMonitor, 'ping' | 'pingKuma'>;

export class HeartbeatMonitor implements CheckObserver {
  readonly tokens = new HeartbeatTokens();
  /** Pings recorded and not yet committed. */
  private committing = 0;
  private idleWaiters: Array<() => void> = [];

  constructor(private readonly deps: HeartbeatDeps) {
    deps.wheel.handle('deadline', (checkId) => this.missed(checkId));
    deps.checks.observe(this);
  }

  /** Loads every heartbeat check, re-arming deadlines from the last ping in history. */
  async start(): Promise<void> {
    for (const check of (await this.deps.store.checks.allHeartbeats())) {
      this.watch(check, await this.deps.store.history.lastAt(check.seq, 'ping'));
    }
  }

  checkSaved(check: Check): void {
    if (check.type !== 'heartbeat') return;
    this.watch(check, this.watched(check.id)?.lastPingAt ?? null);
  }

  /** This central has just taken the check over (several centrals): its deadline runs from the last ping stored. */
  async adopt(check: Check): Promise<void> {
    if (check.type !== 'heartbeat') return;
    const lastPingAt = await this.deps.store.history.lastAt(check.seq, 'ping');
    this.deps.live.delete(check.id);
    this.watch(check, lastPingAt);
  }

  checkDeleted(check: Pick<Check, 'id'>): void {
    this.tokens.delete(check.id);
    if (this.watched(check.id)) this.deps.live.delete(check.id);
    this.deps.wheel.cancel('deadline', check.id);
  }

  private watched(checkId: string): WatchedHeartbeat | undefined {
    const entry = this.deps.live.get(checkId);
    return entry instanceof WatchedHeartbeat ? entry : undefined;
  }

  /** Resolves once every ping and missed deadline so far is recorded and written (tests). */
  async idle(): Promise<void> {
    if (this.committing > 0) await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
    await this.deps.recorder.idle();
  }

  /**
   * Records a ping; resolves false for an unknown token (404), true once committed. A ping for a
   * check another central owns (several centrals) goes to the store's inbox for its owner, and
   * is acknowledged once it is there.
   */
  ping(token: string, signal: PingSignal, meta: PingMetadata): Promise<boolean> {
    const checkId = this.tokens.lookup(token);
    const w = checkId === null ? undefined : this.watched(checkId);
    if (!w) return UNKNOWN_TOKEN;
    const now = this.deps.clock.now();
    const failed = signal.kind === 'fail' || (signal.kind === 'exit' && signal.code !== 0);
    const details = pingDetails(meta, signal);
    const region = this.deps.config.region;
    const kind = signal.kind === 'start' ? 'start' : failed ? 'fail' : 'ping';
    const error = kind !== 'fail' ? null : (meta.message ?? (signal.kind === 'exit' ? `Job exited with code ${signal.code}` : 'Job reported failure'));
    if (this.deps.forward && this.deps.ownership && !this.deps.ownership.owns(w.id)) {
      return this.deps.forward({ checkId: w.id, slot: slotOf(w.id), at: now, signal: kind, error, details, region }).then(() => true);
    }
    return this.apply(w, kind, error, details, region, now, null);
  }

  /**
   * Pings other centrals received for checks this one owns (several centrals): recorded as if
   * received here at their time, each leaving the inbox in its own write.
   */
  async applyForwarded(pings: readonly InboxPing[]): Promise<void> {
    const done: Array<Promise<boolean>> = [];
    for (const p of pings) {
      const w = this.watched(p.checkId);
      if (!w || (this.deps.ownership && !this.deps.ownership.owns(p.checkId))) continue;
      done.push(this.apply(w, p.signal, p.error, { ...p.details }, p.region, p.at, p.seq));
    }
    await Promise.all(done);
  }

  private apply(
    w: WatchedHeartbeat, kind: InboxPing['signal'], error: string | null, details: Record<string, unknown>, region: string | null, now: number,
    inboxSeq: number | null,
  ): Promise<boolean> {
    if (kind === 'start') {
      if (!w.disabled) w.startedAt = now;
      return this.recorded(w, { kind: 'ping', signal: 'start', error: null, details, region, paused: w.disabled, inboxSeq }, now);
    }
    if (w.startedAt !== null && details.duration === undefined) details.duration = now - w.startedAt;
    w.startedAt = null;
    const done = this.recorded(w, { kind: 'ping', signal: kind, error, details, region, paused: w.disabled, inboxSeq }, now);
    if (!w.disabled) {
      w.lastPingAt = Math.max(w.lastPingAt ?? now, now);
      this.arm(w, now);
    }
    return done;
  }

  /**
   * A ping on Uptime Kuma's push URL (`/api/push/<token>`) of a push monitor `vigil import kuma`
   * made into a heartbeat check: the same as that check's own ping. Not a hot path (a
   * compatibility URL): the token is looked up in the store, so an import by the CLI beside a
   * running server works at once.
   */
  async pingKuma(kumaToken: string, signal: PingSignal, meta: PingMetadata): Promise<boolean> {
    if (kumaToken.length === 0 || kumaToken.length > MAX_KUMA_TOKEN) return UNKNOWN_TOKEN;
    const token = await this.deps.store.kumaImports.pingTokenFor(hashSecret(kumaToken));
    return token === null ? UNKNOWN_TOKEN : this.ping(token, signal, meta);
  }

  /** Resolves true once the ping's write is committed (its acknowledgement). */
  private recorded(w: WatchedHeartbeat, obs: Parameters<Recorder['recordDurably']>[1], now: number): Promise<boolean> {
    this.committing++;
    return this.deps.recorder.recordDurably(w, obs, now).then(
      () => {
        this.settled();
        return true;
      },
      (err: unknown) => {
        this.settled();
        throw err;
      },
    );
  }

  private settled(): void {
    if (--this.committing === 0 && this.idleWaiters.length > 0) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const resolve of waiters) resolve();
    }
  }

  /** The wheel's deadline came: missed, unless a ping since has moved the deadline later. */
  private missed(checkId: string): void {
    const w = this.watched(checkId);
    if (!w) return;
    w.armedFor = null;
    if (w.disabled) return;
    if (this.deps.ownership && !this.deps.ownership.owns(checkId)) return;
    const now = this.deps.clock.now();
    const deadline = this.deadline(w);
    if (deadline !== null && deadline > now) {
      this.arm(w, now);
      return;
    }
    this.deps.recorder.record(w, { kind: 'missed', error: missedPingError(w.intervalMs), region: this.deps.config.region }, now);
  }

  private watch(check: Check, lastPingAt: number | null): void {
    if (check.heartbeatToken) this.tokens.set(check.id, check.heartbeatToken);
    const now = this.deps.clock.now();
    const w = new WatchedHeartbeat(check, this.watched(check.id), now, lastPingAt);
    this.deps.live.set(w);
    this.deps.wheel.cancel('deadline', check.id);
    if (!w.disabled) this.arm(w, now);
  }

  /** Puts the deadline on the wheel, unless an entry there already fires no later. */
  private arm(w: WatchedHeartbeat, now: number): void {
    // Pending until the first ping: no deadline, so no alert can ever fire from pending.
    if (w.armedFor !== null || w.state.status === 'pending') return;
    const deadline = this.deadline(w);
    if (deadline === null) return;
    w.armedFor = Math.max(now, deadline);
    this.deps.wheel.schedule('deadline', w.id, w.armedFor);
  }

  /** Late after: the next expected ping (interval, or the next cron run) plus the grace period. */
  private deadline(w: WatchedHeartbeat): number | null {
    if (w.lastPingAt === null) return null;
    const expected = w.cron ? nextRunAfter(w.cron, w.lastPingAt) : w.lastPingAt + w.intervalMs;
    // With several centrals, a ping another central received just before reaches this one's inbox job within a second.
    return expected === null ? null : expected + w.graceMs + (this.deps.forward ? INBOX_GRACE_MS : 0);
  }
}
