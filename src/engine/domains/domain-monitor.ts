import type { Logger } from 'pino';
import type { Config } from '../../config.js';
import type { CheckObserver } from '../../domain/check-observer.js';
import { inMaintenance } from '../../monitor/maintenance.js';
import type { Clock } from '../../domain/clock.js';
import { limitsFor } from '../../domain/plans.js';
import type { Check, DomainInfo } from '../../domain/records.js';
import type { Engine } from '../engine.js';
import { nextDue, wheelId } from '../timing-wheel.js';
import type { MonitorStatus } from '../../domain/events.js';
import type { BatchWriter } from '../../store/sqlite/batch-writer.js';
import type { Store } from '../../store/store.js';
import type { AlertEvent } from '../../domain/events.js';
import type { DomainMemory, DomainWatchRepo } from '../../store/alert-store.js';
import { domainStep, type DomainEventType } from '../../monitor/domain-expiry.js';
import { domainOfCheck } from './domain-name.js';
import { RdapError, type RdapClient } from './rdap-client.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** A failed lookup is tried again sooner than the daily round. */
const RETRY_MS = HOUR;
/** Lookups at once: RDAP servers rate-limit, and nothing here is urgent. */
const CONCURRENCY = 4;
/** Checks on one domain share a lookup made within this long. */
const SHARE_MS = HOUR;

interface WatchedDomain {
  id: string;
  seq: number;
  accountId: string;
  type: Check['type'];
  domain: string;
}

export interface DomainMonitorDeps {
  store: Pick<Store, 'checks' | 'accounts' | 'history' | 'stateChanges'>;
  watch: DomainWatchRepo;
  writer: BatchWriter;
  engine: Pick<Engine, 'wheel' | 'onDeadline'>;
  rdap: RdapClient;
  clock: Clock;
  config: Config;
  log: Logger;
  onEvent: (check: { id: string; accountId: string }, event: AlertEvent) => void;
}

/**
 * Domain expiry (spec §6, decisions §8): `domain` checks, and website checks of plans with
 * `domainIntel`, are looked up over RDAP once a day on the engine's wheel (entries of kind
 * `domain`). Each lookup fills the check's `domain` object; the thresholds (domain-expiry.ts)
 * decide the events. A `domain` check has no uptime probe: it is up while its registration
 * runs and down once it has expired.
 */
export class DomainMonitor implements CheckObserver {
  private readonly watched = new Map<string, WatchedDomain>();
  private readonly waiting: string[] = [];
  private readonly queued = new Set<string>();
  private running = 0;
  private readonly shared = new Map<string, { at: number; result: Promise<DomainInfo> }>();
  private readonly abort = new AbortController();
  private stopped = false;
  readonly metrics = { lookups: 0, failures: 0 };

  constructor(private readonly deps: DomainMonitorDeps) {
    deps.engine.onDeadline('domain', (checkId) => this.due(checkId));
  }

  /** Watches every eligible check, each due a day after its last lookup. */
  start(): void {
    const now = this.deps.clock.now();
    const memory = new Map(this.deps.watch.all().map((m) => [m.checkId, m]));
    const intel = new Map<string, boolean>();
    this.deps.store.checks.forEachEnabled((check) => {
      if (check.type !== 'domain' && check.type !== 'website') return;
      let allowed = intel.get(check.accountId);
      if (allowed === undefined) intel.set(check.accountId, (allowed = this.domainIntel(check.accountId)));
      this.follow(check, allowed, memory.get(check.id) ?? null, false, now);
    });
  }

  stop(): void {
    this.stopped = true;
    this.abort.abort();
  }

  checkSaved(check: Check, runNow: boolean): void {
    const allowed = check.type === 'website' && this.domainIntel(check.accountId);
    this.follow(check, allowed, this.deps.watch.get(check.id), runNow, this.deps.clock.now());
  }

  checkDeleted(check: Pick<Check, 'id'>): void {
    this.watched.delete(check.id);
    this.deps.engine.wheel.cancel(wheelId('domain', check.id));
  }

  /** Lookups waiting or running (tests and benchmarks wait for zero). */
  get pending(): number {
    return this.running + this.waiting.length;
  }

  private domainIntel(accountId: string): boolean {
    const account = this.deps.store.accounts.byId(accountId);
    return account !== null && limitsFor(this.deps.config, account).domainIntel;
  }

  private follow(check: Check, websiteAllowed: boolean, memory: DomainMemory | null, runNow: boolean, now: number): void {
    const eligible = !check.disabled && (check.type === 'domain' || (check.type === 'website' && websiteAllowed));
    const domain = eligible ? domainOfCheck(check) : null;
    // What was learned about another domain (or for a check no longer watched) is not this check's.
    if (check.domain !== null && check.domain.name !== domain && !check.disabled) {
      this.deps.writer.submit(() => this.deps.store.checks.saveDomain(check.id, null));
    }
    if (domain === null) {
      this.checkDeleted(check);
      return;
    }
    const previous = this.watched.get(check.id);
    this.watched.set(check.id, { id: check.id, seq: check.seq, accountId: check.accountId, type: check.type, domain });
    const known = memory?.checkedAt != null && check.domain?.name === domain && (!previous || previous.domain === domain);
    let dueAt: number;
    if (check.type === 'domain' && (runNow || !known)) dueAt = now;
    else if (known) dueAt = Math.max(now, memory!.checkedAt! + (memory!.lastError ? RETRY_MS : DAY));
    // A website never looked up: within the hour, spread so that many at once make no burst.
    else dueAt = nextDue(check.id, HOUR, now);
    this.deps.engine.wheel.schedule(wheelId('domain', check.id), dueAt);
  }

  private due(checkId: string): void {
    if (this.stopped || !this.watched.has(checkId) || this.queued.has(checkId)) return;
    this.queued.add(checkId);
    this.waiting.push(checkId);
    this.drain();
  }

  private drain(): void {
    while (!this.stopped && this.running < CONCURRENCY && this.waiting.length > 0) {
      const id = this.waiting.shift()!;
      this.queued.delete(id);
      this.running++;
      this.lookup(id)
        .catch((err: unknown) => this.deps.log.error({ err, checkId: id }, 'domain lookup failed'))
        .finally(() => {
          this.running--;
          this.drain();
        });
    }
  }

  /** One lookup per domain per SHARE_MS, however many checks watch it. */
  private resolve(domain: string, now: number): Promise<DomainInfo> {
    const recent = this.shared.get(domain);
    if (recent && now - recent.at < SHARE_MS) return recent.result;
    for (const [name, entry] of this.shared) if (now - entry.at >= SHARE_MS) this.shared.delete(name);
    const result = this.deps.rdap.lookup(domain, this.abort.signal);
    this.shared.set(domain, { at: now, result });
    result.catch(() => this.shared.delete(domain));
    return result;
  }

  private async lookup(id: string): Promise<void> {
    const w = this.watched.get(id);
    if (!w) return;
    const started = this.deps.clock.now();
    let info: DomainInfo | null = null;
    let error: string | null = null;
    this.metrics.lookups++;
    try {
      info = await this.resolve(w.domain, started);
    } catch (err) {
      error = err instanceof RdapError ? err.message : 'RDAP lookup failed';
      this.metrics.failures++;
    }
    if (this.stopped || this.watched.get(id) !== w) return;
    const now = this.deps.clock.now();
    const check = this.deps.store.checks.byId(id);
    if (!check) return;
    if (w.type === 'website' && !this.domainIntel(w.accountId)) {
      this.checkDeleted(check);
      return;
    }
    if (info) this.found(w, check, info, now, now - started);
    else this.failed(w, check, error ?? 'RDAP lookup failed', now, now - started);
  }

  private found(w: WatchedDomain, check: Check, info: DomainInfo, now: number, ms: number): void {
    const stored = this.deps.watch.get(w.id);
    // Memory belongs to one domain: a check whose URL moved to another starts afresh.
    const memory = stored && check.domain?.name === info.name ? stored : null;
    const maintenance = inMaintenance(check, now);
    const expiresAt = info.expiresAt ? Date.parse(info.expiresAt) : null;
    let next: DomainMemory = { checkId: w.id, expiresAt: memory?.expiresAt ?? null, alerted: memory?.alerted ?? 'ok', checkedAt: now, lastError: null };
    let events: DomainEventType[] = [];
    // Maintenance: nothing is armed, so what is still true afterwards alerts then (like the state machine).
    if (expiresAt !== null && !maintenance) {
      const step = domainStep(memory, expiresAt, now);
      next = { ...next, ...step.memory };
      events = step.events;
    }
    const expired = expiresAt !== null && expiresAt <= now;
    const status: MonitorStatus = w.type === 'domain' && !maintenance ? (expired ? 'down' : 'up') : check.status;
    const reason = expired ? `Domain ${info.name} expired on ${info.expiresAt!.slice(0, 10)}` : null;
    this.deps.writer.submit(() => {
      this.deps.store.checks.saveDomain(w.id, info);
      this.deps.watch.put(next);
      if (w.type === 'domain') this.record(w, check, now, ms, status, expired ? 'down' : 'up', reason, { domain: info });
    });
    this.deps.engine.wheel.schedule(wheelId('domain', w.id), now + DAY);
    for (const type of events) this.deps.onEvent({ id: w.id, accountId: w.accountId }, this.eventOf(type, check, status, info, now));
  }

  private failed(w: WatchedDomain, check: Check, error: string, now: number, ms: number): void {
    const stored = this.deps.watch.get(w.id);
    const next: DomainMemory = { checkId: w.id, expiresAt: stored?.expiresAt ?? null, alerted: stored?.alerted ?? 'ok', checkedAt: now, lastError: error };
    this.deps.writer.submit(() => {
      this.deps.watch.put(next);
      if (w.type === 'domain') this.record(w, check, now, ms, check.status, 'down', error, null);
    });
    this.deps.log.warn({ checkId: w.id, domain: w.domain, error }, 'domain lookup failed');
    this.deps.engine.wheel.schedule(wheelId('domain', w.id), now + RETRY_MS);
  }

  /** A `domain` check's lookup as history keeps a probe; its status moves only on expiry and renewal. */
  private record(
    w: WatchedDomain, check: Check, now: number, ms: number, status: MonitorStatus,
    outcome: 'up' | 'down', error: string | null, meta: Record<string, unknown> | null,
  ): void {
    const { store } = this.deps;
    const current = store.checks.byId(w.id) ?? check;
    const changed = current.status !== status;
    store.history.insertResult({
      checkSeq: w.seq, at: now, kind: 'probe', status: outcome, statusCode: null, responseTime: ms,
      timing: null, error, region: this.deps.config.region, snippet: null, meta,
    });
    store.checks.saveRuntime(w.id, {
      status,
      consecutiveFailures: outcome === 'up' ? 0 : current.consecutiveFailures + 1,
      degraded: false,
      lastError: status === 'down' ? error : null,
      lastStatusChange: changed ? now : current.lastStatusChange,
      probesTotal: current.probesTotal + 1,
      probesUp: current.probesUp + (outcome === 'up' ? 1 : 0),
      ssl: current.ssl,
      regions: current.regions,
      errorAlerted: current.errorAlerted,
      sslAlerts: current.sslAlerts,
      sync: { lastChecked: now, lastResponseTime: ms, lastStatusCode: null },
    });
    if (changed) store.stateChanges.append(w.seq, now, status);
  }

  private eventOf(type: DomainEventType, check: Check, status: MonitorStatus, info: DomainInfo, now: number): AlertEvent {
    const date = info.expiresAt?.slice(0, 10) ?? 'an unknown date';
    const error =
      type === 'domain_expired' ? `Domain ${info.name} expired on ${date}`
      : type === 'domain_expiring' ? `Domain ${info.name} expires on ${date}`
      : `Domain ${info.name} renewed until ${date}`;
    const region = this.deps.config.region;
    return {
      type,
      at: now,
      previousStatus: check.status,
      status,
      error,
      statusCode: null,
      responseTime: null,
      regions: check.regions ?? { primary: region, peer: null, regionsTotal: 1, regionsDown: 0, confirmedDown: false },
      ssl: null,
      domain: info,
    };
  }
}
