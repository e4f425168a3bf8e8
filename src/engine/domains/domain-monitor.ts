import type { Logger } from 'pino';
import type { Config } from '../../config.js';
import type { CheckEvents, CheckObserver } from '../../domain/check-observer.js';
import type { Clock } from '../../domain/clock.js';
import { limitsFor } from '../../domain/plans.js';
import type { Check, DomainInfo } from '../../domain/records.js';
import { DEADLINE_POLICY, LiveCheck } from '../../monitor/live-check.js';
import type { LiveChecks } from '../../monitor/live-checks.js';
import type { Recorder } from '../../monitor/recorder.js';
import type { DomainMemory, DomainWatchRepo } from '../../store/alert-store.js';
import type { Store } from '../../store/store.js';
import type { CheckWheel } from '../check-wheel.js';
import { nextDue } from '../timing-wheel.js';
import { domainOfCheck } from './domain-name.js';
import { RdapError, type RdapClient } from './rdap-client.js';
import type { Ownership } from '../engine.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** A failed lookup is tried again sooner than the daily round. */
const RETRY_MS = HOUR;
/** Lookups at once: RDAP servers rate-limit, and nothing here is urgent. */
const CONCURRENCY = 4;
/** Checks on one domain share a lookup made within this long. */
const SHARE_MS = HOUR;

/** A check whose domain is looked up. */
interface WatchedDomain {
  id: string;
  accountId: string;
  type: Check['type'];
  domain: string;
  /** The domain the stored `domain` field describes (memory belongs to one domain). */
  knownDomain: string | null;
}

/** A `domain` check's live entry: its lookups are its results. (A website's is the engine's.) */
class DomainCheck extends LiveCheck {}

export interface DomainMonitorDeps {
  store: Pick<Store, 'checks' | 'accounts'>;
  watch: DomainWatchRepo;
  recorder: Recorder;
  /** Where a `domain` check's live entry is kept, and a website's is found. */
  live: LiveChecks;
  wheel: CheckWheel;
  /** The checks service, whose mutations the monitor follows. */
  checks: CheckEvents;
  rdap: RdapClient;
  clock: Clock;
  config: Config;
  log: Logger;
  /** Several centrals: only the check's owner looks it up (it is scheduled again when this central takes the check over). */
  ownership?: Ownership;
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
  /** The latest save of each check whose store reads are still answering. */
  private readonly saves = new Map<string, object>();
  readonly metrics = { lookups: 0, failures: 0 };

  private idleWaiters: Array<() => void> = [];

  constructor(private readonly deps: DomainMonitorDeps) {
    deps.wheel.handle('domain', (checkId) => this.due(checkId));
    deps.checks.observe(this);
  }

  /** Watches every eligible check, each due a day after its last lookup. */
  async start(): Promise<void> {
    const now = this.deps.clock.now();
    const memory = new Map((await this.deps.watch.all()).map((m) => [m.checkId, m]));
    const intel = new Map<string, boolean>();
    const eligible: Check[] = [];
    await this.deps.store.checks.forEachEnabled((check) => {
      if (check.type === 'domain' || check.type === 'website') eligible.push(check);
    });
    for (const check of eligible) {
      let allowed = intel.get(check.accountId);
      if (allowed === undefined) intel.set(check.accountId, (allowed = await this.domainIntel(check.accountId)));
      this.follow(check, allowed, memory.get(check.id) ?? null, false, now);
    }
  }

  stop(): void {
    this.stopped = true;
    this.abort.abort();
  }

  /** Once the store has answered, unless a later save or a delete of the check came first. */
  checkSaved(check: Check, runNow: boolean): void {
    const mark = {};
    this.saves.set(check.id, mark);
    void this.followSaved(check, runNow, mark).catch((err: unknown) => this.deps.log.error({ err, checkId: check.id }, 'domain watch not updated'));
  }

  private async followSaved(check: Check, runNow: boolean, mark: object): Promise<void> {
    const allowed = check.type === 'website' && (await this.domainIntel(check.accountId));
    const memory = await this.deps.watch.get(check.id);
    if (this.saves.get(check.id) !== mark) return;
    this.saves.delete(check.id);
    this.follow(check, allowed, memory, runNow, this.deps.clock.now());
  }

  checkDeleted(check: Pick<Check, 'id'>): void {
    this.saves.delete(check.id);
    this.watched.delete(check.id);
    if (this.deps.live.get(check.id) instanceof DomainCheck) this.deps.live.delete(check.id);
    this.deps.wheel.cancel('domain', check.id);
  }

  /** Resolves once no lookup waits or runs and every one so far is written (tests). */
  async idle(): Promise<void> {
    if (this.pending > 0) await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
    await this.deps.recorder.idle();
  }

  /** Lookups waiting or running (tests and benchmarks wait for zero). */
  get pending(): number {
    return this.running + this.waiting.length;
  }

  private async domainIntel(accountId: string): Promise<boolean> {
    const account = await this.deps.store.accounts.byId(accountId);
    return account !== null && limitsFor(this.deps.config, account).domainIntel;
  }

  private follow(check: Check, websiteAllowed: boolean, memory: DomainMemory | null, runNow: boolean, now: number): void {
    const eligible = !check.disabled && (check.type === 'domain' || (check.type === 'website' && websiteAllowed));
    const domain = eligible ? domainOfCheck(check) : null;
    // What was learned about another domain (or for a check no longer watched) is not this check's.
    if (check.domain !== null && check.domain.name !== domain && !check.disabled) {
      this.deps.recorder.forgetDomain(check.id);
    }
    if (domain === null) {
      this.checkDeleted(check);
      return;
    }
    const previous = this.watched.get(check.id);
    if (check.type === 'domain') {
      const entry = this.deps.live.get(check.id);
      const kept = previous?.domain === domain && entry instanceof DomainCheck ? entry : undefined;
      this.deps.live.set(new DomainCheck(check, DEADLINE_POLICY, check.accountId, kept, now));
    }
    this.watched.set(check.id, { id: check.id, accountId: check.accountId, type: check.type, domain, knownDomain: check.domain?.name ?? null });
    const known = memory?.checkedAt != null && check.domain?.name === domain && (!previous || previous.domain === domain);
    let dueAt: number;
    if (check.type === 'domain' && (runNow || !known)) dueAt = now;
    else if (known) dueAt = Math.max(now, memory!.checkedAt! + (memory!.lastError ? RETRY_MS : DAY));
    // A website never looked up: within the hour, spread so that many at once make no burst.
    else dueAt = nextDue(check.id, HOUR, now);
    this.deps.wheel.schedule('domain', check.id, dueAt);
  }

  private due(checkId: string): void {
    if (this.stopped || !this.watched.has(checkId) || this.queued.has(checkId)) return;
    if (this.deps.ownership && !this.deps.ownership.owns(checkId)) return;
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
          if (this.pending === 0 && this.idleWaiters.length > 0) {
            const waiters = this.idleWaiters;
            this.idleWaiters = [];
            for (const resolve of waiters) resolve();
          }
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
    const allowed = w.type !== 'website' || (await this.domainIntel(w.accountId));
    const stored = await this.deps.watch.get(w.id);
    // The store answered: the check may have been changed or deleted meanwhile.
    if (this.stopped || this.watched.get(id) !== w) return;
    const now = this.deps.clock.now();
    if (!allowed) {
      this.checkDeleted(w);
      return;
    }
    // A `domain` check's entry is this monitor's; a website's the engine's (gone while it is not scheduled).
    const live = this.deps.live.get(w.id);
    if (!live) return;
    // Memory belongs to one domain: a check whose URL moved to another starts afresh.
    const memory = info && w.knownDomain !== info.name ? null : stored;
    if (info) w.knownDomain = info.name;
    else this.deps.log.warn({ checkId: w.id, domain: w.domain, error }, 'domain lookup failed');
    this.deps.recorder.record(live, {
      kind: 'domain', checkType: w.type === 'domain' ? 'domain' : 'website', info, error: error ?? 'RDAP lookup failed',
      ms: now - started, memory, region: this.deps.config.region,
    }, now);
    this.deps.wheel.schedule('domain', w.id, now + (info ? DAY : RETRY_MS));
  }
}
