import type { Config } from '../config.js';
import type { CheckQuery, ListStatus, Store } from '../store/store.js';
import { AuditLog, type AuditSource } from './audit-log.js';
import { SYSTEM_ACTOR } from '../domain/people.js';
import { applyInput, DEFAULT_SETTINGS, validateSettings } from './check-settings.js';
import type { CheckType } from '../domain/check-types.js';
import type { Clock } from '../domain/clock.js';
import { errors } from '../domain/errors.js';
import { decodeCursor, pageOf, type PageMeta, type PageRequest } from './pagination.js';
import { limitsFor } from '../domain/plans.js';
import { accessAllows, type Principal } from './principal.js';
import { accountRule, refusalMessage } from '../domain/outbound-policy.js';
import { resolvesToPrivate } from '../util/outbound-guard.js';
import type { Check, CheckSettings } from '../domain/records.js';
import type { CreateCheckInput, UpdateCheckBody } from './schemas/checks.js';
import { settingsOfPatch } from './check-patch.js';
import { checkDetail } from './views.js';
import { inMaintenance } from '../monitor/maintenance.js';
import { blockedBy, validDependencies } from './check-dependencies.js';
import { parseIsoInstant } from './iso-date.js';
import { hashSecret, newHeartbeatToken, newId } from '../domain/secrets.js';
import { parseTarget } from './check-target.js';
import type { CheckObserver } from '../domain/check-observer.js';

const NOT_BLOCKED: readonly string[] = Object.freeze([]);

/** The check, if the principal may read it; else the error saying why not. */
function readableBy(principal: Principal, id: string, check: Check | null): Check {
  if (!check) throw errors.notFound(`Check ${id} not found`);
  if (check.accountId !== principal.account.id) throw errors.forbidden('This check belongs to another account');
  if (!accessAllows(principal.access, check)) throw errors.forbidden('This key is not allowed to access this check');
  return check;
}

/** Fields whose change resets the schedule (spec 3: "behavior fields"). */
const BEHAVIOUR_FIELDS = new Set([
  'url', 'type', 'checkFrequency', 'httpMethod', 'expectedStatusCodes', 'requestHeaders', 'requestBody',
  'responseValidation', 'cacheControlNoCache', 'responseTimeLimit', 'downConfirmationAttempts',
  'pingPackets', 'timezone', 'checkRegionOverride', 'immediateRecheckEnabled',
]);

/** A scheduled window starting (`on`) or ending for a check, at the occurrence's start or end. */
export interface WindowChange {
  check: Check;
  on: boolean;
  at: number;
  /** The window; null for an end whose window this process did not see start (a restart). */
  window: { id: string; title: string; end?: number } | null;
}

const isSeq = (v: unknown): v is number => Number.isInteger(v) && (v as number) >= 0;

export class ChecksService {
  constructor(
    private readonly store: Store,
    private readonly config: Config,
    private readonly clock: Clock,
  ) {
    this.audit = new AuditLog(store, clock);
  }

  private readonly observers: CheckObserver[] = [];
  private readonly windowListeners: Array<(changes: readonly WindowChange[]) => void> = [];
  /** Who changed which check (issue 28): written in each change's own transaction. */
  private readonly audit: AuditLog;

  observe(observer: CheckObserver): void {
    this.observers.push(observer);
  }

  /** Hears of scheduled windows starting and ending once committed (status page subscribers, issue 29). */
  onWindowChange(listener: (changes: readonly WindowChange[]) => void): void {
    this.windowListeners.push(listener);
  }

  /** Regions a check may be pinned to: the central's and every region with a registered node. */
  async availableRegions(): Promise<string[]> {
    const others = (await this.store.nodes.regions()).map((r) => r.region).filter((r) => r !== this.config.region);
    return [this.config.region, ...others];
  }

  private async checkRegion(region: string): Promise<void> {
    const available = await this.availableRegions();
    if (!available.includes(region)) throw errors.badRequest(`checkRegionOverride must be one of: ${available.join(', ')}`);
  }

  /**
   * Observers (the wheel, the node hub, heartbeats, domains, the status feed) hear of a change
   * once its unit of work has committed, the request's when the route runs in one: never of a
   * change rolled back.
   */
  private saved(check: Check, runNow: boolean): void {
    this.store.afterCommit(() => {
      for (const o of this.observers) o.checkSaved(check, runNow);
    });
  }

  /**
   * Hands a check to the observers again as it is stored: this central has just taken it over
   * from another (several centrals), whose state it reads anew, or another central changed it.
   */
  announce(check: Check, runNow = false): void {
    for (const o of this.observers) o.checkSaved(check, runNow);
  }

  /** A check deleted on another central (several centrals): the observers drop it here too. */
  announceDeleted(check: Pick<Check, 'id' | 'accountId' | 'folder'>): void {
    // Observers read only these fields of a deleted check (its id; the feed its account and folder).
    for (const o of this.observers) o.checkDeleted(check as Check);
  }

  private edited(check: Check): void {
    this.store.afterCommit(() => {
      for (const o of this.observers) o.checkEdited?.(check);
    });
  }

  private deleted(check: Check): void {
    this.store.afterCommit(() => {
      for (const o of this.observers) o.checkDeleted(check);
    });
  }

  /**
   * Hands the checks another process (the CLI: an import, a claim) created or changed on this
   * data directory to the observers as if they were saved here, to run at once: they appear in
   * reads and start probing without a restart. Every read calls it (nearly free: see
   * CheckRepo.writtenElsewhere); the server also calls it every second, for checks nobody reads.
   * Returns how many there were.
   */
  catchUp(): number {
    return this.handOver(this.store.checks.writtenElsewhere());
  }

  /**
   * catchUp() with what other processes committed until now (a store that polls for them reads
   * at once): a heartbeat token unknown here may belong to a check another central created a
   * moment ago, before its change notice arrived.
   */
  async catchUpNow(): Promise<number> {
    await this.store.checks.poll?.();
    return this.catchUp();
  }

  /** The checks catchUp found, to the observers as if saved here; how many. */
  private handOver(checks: readonly Check[]): number {
    for (const check of checks) this.saved(check, true);
    return checks.length;
  }

  async create(principal: Principal, input: CreateCheckInput): Promise<{ id: string }> {
    const type = input.type ?? 'website';
    const account = principal.account;
    const now = this.clock.now();
    const base: CheckSettings = { ...DEFAULT_SETTINGS, name: '', url: '', type };
    const settings = applyInput(base, { ...input, type });
    if (type === 'heartbeat') settings.url = '';
    const urlKey = validateSettings(settings, account, this.config, new Set([...Object.keys(input), 'type']));
    if (input.checkRegionOverride) await this.checkRegion(input.checkRegionOverride);
    this.requireCreateAccess(principal, settings.folder);
    settings.dependsOn = await validDependencies(settings.dependsOn, { id: null, accountId: account.id, current: [] }, principal.access, this.lookup);
    const id = newId('chk');
    const token = type === 'heartbeat' ? newHeartbeatToken() : null;
    if (!settings.name) settings.name = type === 'heartbeat' ? `Heartbeat ${id.slice(4, 12)}` : settings.url;

    const check = await this.store.transaction(async () => {
      const max = limitsFor(this.config, account).maxChecks;
      if ((await this.store.checks.countForAccount(account.id)) >= max) {
        throw errors.conflict(`The account has reached its maximum of ${max} checks`);
      }
      if (urlKey !== null && (await this.store.checks.urlTaken(account.id, urlKey, null))) {
        throw errors.conflict(`A check already exists for ${settings.url}`);
      }
      const record: Omit<Check, 'seq'> = {
        ...settings,
        id,
        accountId: account.id,
        disabled: false,
        disabledReason: null,
        maintenance: false,
        maintenanceUntil: null,
        windowMaintenance: false,
        heartbeatToken: token,
        status: 'pending',
        consecutiveFailures: 0,
        degraded: false,
        lastChecked: null,
        lastResponseTime: null,
        lastStatusCode: null,
        lastError: null,
        lastStatusChange: null,
        probesTotal: 0,
        probesUp: 0,
        ssl: null,
        domain: null,
        regions: null,
        errorAlerted: false,
        sslAlerts: null,
        createdAt: now,
        updatedAt: now,
      };
      const seq = await this.store.checks.insert(record, urlKey, token === null ? null : hashSecret(token));
      await this.store.stateChanges.append(seq, now, 'pending');
      await this.audit.record(principal, account.id, 'check.create', checkTarget(record), Object.keys(input));
      return { ...record, seq };
    });
    this.saved(check, true);
    return { id };
  }

  /** A check's current record, unfiltered: for publishers that apply each subscriber's access themselves. */
  async find(id: string): Promise<Check | null> {
    this.catchUp();
    return this.store.checks.byId(id);
  }

  /** A check the principal may see; 404 when it does not exist, 403 when it is not theirs. */
  /** A restricted key creates only inside its folders: it could never see a check created elsewhere. */
  requireCreateAccess(principal: Principal, folder: string | null): void {
    if (principal.access && !(folder !== null && principal.access.folders.includes(folder))) {
      throw errors.forbidden('A key restricted to checks or folders can only create checks in one of its folders (set folder)');
    }
  }

  async get(principal: Principal, id: string): Promise<Check> {
    this.catchUp();
    return readableBy(principal, id, await this.store.checks.byId(id));
  }

  /**
   * get() without waiting, where the store reads at once (CheckRepo.byIdNow: SQLite): the one
   * synchronous read, for GET /checks/{id} (a hot path). Undefined when the store cannot answer
   * now; the caller then awaits get().
   */
  readableNow(principal: Principal, id: string): Check | undefined {
    this.catchUp();
    const check = this.store.checks.byIdNow?.(id);
    return check === undefined ? undefined : readableBy(principal, id, check);
  }

  async list(principal: Principal, filter: { status?: ListStatus; tags?: readonly string[] }, page: PageRequest): Promise<{ data: Check[]; meta: PageMeta }> {
    this.catchUp();
    const query: CheckQuery = { accountId: principal.account.id, access: principal.access, status: filter.status, tags: filter.tags };
    const fromCursor = page.cursor === undefined ? null : decodeCursor(page.cursor, isSeq);
    const pageNumber = fromCursor?.page ?? page.page;
    const rows = await this.store.checks.list(query, {
      limit: page.limit + 1,
      offset: fromCursor ? 0 : (page.page - 1) * page.limit,
      afterSeq: fromCursor?.key ?? null,
    });
    const total = page.includeTotal ? await this.store.checks.count(query) : undefined;
    return pageOf(rows, { limit: page.limit, page: pageNumber }, (c) => c.seq, total);
  }

  private readonly lookup = (id: string): Promise<Check | null> => this.store.checks.byId(id);

  /** The checks this one depends on that are down now (its alerts are held meanwhile). */
  async blockedBy(check: Check): Promise<readonly string[]> {
    if (check.dependsOn.length === 0) return NOT_BLOCKED;
    return (await blockedBy(check, this.lookup)).map((c) => c.id);
  }

  /** Moves whenever any check changes (for caches of rendered lists); at once, as GET /checks is a hot path. */
  version(): number {
    this.catchUp();
    return this.store.checks.version();
  }

  /** A new ping URL; the old token is invalid from the next request on (decisions §4). */
  async regenerateToken(principal: Principal, id: string): Promise<{ check: Check; token: string }> {
    const token = newHeartbeatToken();
    const check = await this.store.transaction(async () => {
      const current = await this.get(principal, id);
      if (current.type !== 'heartbeat') throw errors.badRequest('Only heartbeat checks have a ping URL to regenerate');
      const now = this.clock.now();
      await this.store.checks.setHeartbeatToken(id, token, hashSecret(token), now);
      await this.audit.record(principal, current.accountId, 'check.token_regenerate', checkTarget(current), ['heartbeatToken']);
      return { ...current, heartbeatToken: token, updatedAt: now };
    });
    this.saved(check, false);
    return { check, token };
  }

  /** Every check the principal may see, in dashboard order (the status overview). */
  async all(principal: Principal): Promise<Check[]> {
    this.catchUp();
    const query: CheckQuery = { accountId: principal.account.id, access: principal.access };
    return this.store.checks.list(query, { limit: -1, offset: 0, afterSeq: null });
  }

  /**
   * The outbound policy's early feedback (docs/outbound-policy.md): with
   * `probes.blockPrivateAddresses` on (or for an account created by agent signup, unless
   * `signup.allowPrivateTargets`), a create (id null) or update whose target is, or resolves to,
   * a private address now is a 400; a name that does not resolve now is accepted, and its probes
   * refuse it when they connect. Resolving is I/O, so the route runs this before its
   * transaction; undefined when there is nothing to resolve.
   */
  checkTarget(principal: Principal, id: string | null, input: { type?: CheckType; url?: string }): Promise<void> | undefined {
    if (input.url === undefined && input.type === undefined) return undefined;
    if (!this.config.probes.blockPrivateAddresses && this.config.signup.allowPrivateTargets) return undefined;
    return this.checkTargetAddress(principal, id, input);
  }

  private async checkTargetAddress(principal: Principal, id: string | null, input: { type?: CheckType; url?: string }): Promise<void> {
    const rule = this.config.probes.blockPrivateAddresses
      ? 'operator'
      : accountRule(this.config, await this.store.accounts.createdBySignup(principal.account.id));
    if (rule === null) return;
    const current = id === null ? null : await this.get(principal, id);
    const type = input.type ?? current?.type ?? 'website';
    const url = input.url ?? current?.url;
    if (url === undefined || type === 'heartbeat' || type === 'domain') return;
    const target = parseTarget(type, url);
    if (!target.ok) return; // the handler's validation says why
    if (await resolvesToPrivate(target.host, this.config.probes.dnsServers)) throw errors.badRequest(refusalMessage(rule, 'url'));
  }

  /** PATCH: only the fields sent change; a GET record sent back is accepted (check-patch.ts). */
  async update(principal: Principal, id: string, body: UpdateCheckBody): Promise<void> {
    const { check, changed } = await this.store.transaction(async () => {
      const current = await this.get(principal, id);
      const input = settingsOfPatch(body, checkDetail(current, this.config, this.clock.now()));
      const changed = new Set(Object.keys(input));
      if (current.type === 'heartbeat' && input.url !== undefined) {
        throw errors.badRequest('A heartbeat check has a generated ping URL; use regenerate-token to change it');
      }
      if (current.type === 'heartbeat' && input.type !== undefined) {
        throw errors.badRequest('A heartbeat check cannot change its type');
      }
      const settings = applyInput(current, input);
      // A check created without a name is named by its URL (spec 2.3), and stays so when the URL moves.
      if (input.name === undefined && input.url !== undefined && current.name === current.url) settings.name = settings.url;
      const urlKey = validateSettings(settings, principal.account, this.config, changed);
      if (changed.has('checkRegionOverride') && settings.regionOverride !== null) await this.checkRegion(settings.regionOverride);
      if (changed.has('dependsOn')) {
        const self = { id, accountId: current.accountId, current: current.dependsOn };
        settings.dependsOn = await validDependencies(settings.dependsOn, self, principal.access, this.lookup);
      }
      if (principal.access && !accessAllows(principal.access, { id, folder: settings.folder })) {
        throw errors.forbidden('This key cannot move a check outside the checks and folders it may access');
      }
      if (urlKey !== null && (changed.has('url') || changed.has('type')) && (await this.store.checks.urlTaken(principal.account.id, urlKey, id))) {
        throw errors.conflict(`A check already exists for ${settings.url}`);
      }
      const now = this.clock.now();
      await this.store.checks.updateSettings(id, settings, urlKey, now);
      await this.audit.record(principal, current.accountId, 'check.update', checkTarget({ id, name: settings.name }), [...changed]);
      return { check: { ...current, ...settings, updatedAt: now }, changed };
    });
    const behaviourChanged = [...changed].some((f) => BEHAVIOUR_FIELDS.has(f));
    if (behaviourChanged) this.saved(check, true);
    else this.edited(check);
  }

  async remove(principal: Principal, id: string): Promise<void> {
    const check = await this.store.transaction(async () => {
      const c = await this.get(principal, id);
      await this.store.history.deleteForCheck(c.seq);
      await this.store.stateChanges.deleteForCheck(c.seq);
      await this.store.checks.delete(id);
      await this.audit.record(principal, c.accountId, 'check.delete', checkTarget(c));
      return c;
    });
    this.deleted(check);
  }

  async toggle(principal: Principal, id: string, disabled: boolean, reason: string | undefined) {
    const check = await this.store.transaction(async () => {
      const current = await this.get(principal, id);
      const now = this.clock.now();
      if (current.disabled !== disabled) {
        await this.writePaused(current, disabled, disabled ? reason?.trim() || 'Disabled via API' : reason?.trim() || null, now);
        await this.audit.record(principal, current.accountId, disabled ? 'check.pause' : 'check.resume', checkTarget(current), ['disabled']);
      }
      return current.disabled === disabled ? current : { ...current, disabled, updatedAt: now, lastStatusChange: now };
    });
    this.saved(check, !disabled);
    return { success: true, disabled, message: disabled ? 'Check disabled' : 'Check enabled' };
  }

  async setMaintenance(principal: Principal, id: string, enabled: boolean, untilIso: string | null | undefined) {
    const now = this.clock.now();
    let until: number | null = null;
    if (enabled && untilIso) {
      until = parseIsoInstant(untilIso);
      if (Number.isNaN(until)) throw errors.badRequest('until must be an ISO 8601 date-time');
      if (until <= now) throw errors.badRequest('until must be in the future');
    }
    const check = await this.store.transaction(async () => {
      const current = await this.get(principal, id);
      await this.store.checks.setMaintenance(id, enabled, until, now);
      if (current.maintenance !== enabled || current.maintenanceUntil !== until) {
        await this.audit.record(principal, current.accountId, 'check.maintenance', checkTarget(current), enabled ? ['maintenance', 'until'] : ['maintenance']);
        await this.store.history.insertEvent({
          checkSeq: current.seq,
          at: now,
          status: enabled ? 'maintenance' : 'maintenance_end',
          region: null,
          meta: { event: enabled ? 'maintenance_on' : 'maintenance_off', until: until === null ? null : new Date(until).toISOString() },
        });
      }
      return { ...current, maintenance: enabled, maintenanceUntil: until };
    });
    this.saved(check, false);
    // A scheduled window in force keeps the check in maintenance when the manual one ends.
    return { maintenanceMode: inMaintenance(check, now), until: until === null ? null : new Date(until).toISOString() };
  }

  /** Every check of an account, in dashboard order (the maintenance window scheduler). */
  async ofAccount(accountId: string): Promise<Check[]> {
    return this.store.checks.list({ accountId, access: null }, { limit: -1, offset: 0, afterSeq: null });
  }

  /**
   * Scheduled windows starting and ending (issue 27): the flag, a history event dated at the
   * occurrence's start or end, and the observers told, as a manual maintenance switch does.
   */
  async applyWindowMaintenance(changes: readonly WindowChange[], now: number): Promise<void> {
    const saved = await this.store.transaction(async () => {
      const out: Check[] = [];
      for (const { check, on, at, window } of changes) {
        await this.store.checks.setWindowMaintenance(check.id, on, now);
        await this.store.history.insertEvent({
          checkSeq: check.seq,
          at,
          status: on ? 'maintenance' : 'maintenance_end',
          region: null,
          meta: { event: on ? 'window_start' : 'window_end', windowId: window?.id ?? null, title: window?.title ?? null },
        });
        out.push({ ...check, windowMaintenance: on, updatedAt: now });
      }
      return out;
    });
    for (const check of saved) this.saved(check, false);
    this.store.afterCommit(() => {
      for (const listener of this.windowListeners) listener(changes);
    });
  }

  /** Pauses every running check of an account, as a toggle would (an unclaimed account after 7 days). Returns how many. */
  async pauseAccount(accountId: string, reason: string, source: AuditSource = { actor: SYSTEM_ACTOR }): Promise<number> {
    return this.setAccountPaused(accountId, true, (c) => !c.disabled, reason, source);
  }

  /** Resumes the account's checks paused with exactly `pausedReason` (not those a user paused). Returns how many. */
  async resumeAccount(accountId: string, pausedReason: string, reason: string, source: AuditSource = { actor: SYSTEM_ACTOR }): Promise<number> {
    return this.setAccountPaused(accountId, false, (c) => c.disabled && c.disabledReason === pausedReason, reason, source);
  }

  /** Deletes every check of an account with its history (account deletion); observers let go of each. */
  async removeAccountChecks(accountId: string): Promise<number> {
    const removed = await this.store.transaction(async () => {
      const all = await this.store.checks.list({ accountId, access: null }, { limit: -1, offset: 0, afterSeq: null });
      for (const c of all) {
        await this.store.history.deleteForCheck(c.seq);
        await this.store.stateChanges.deleteForCheck(c.seq);
        await this.store.checks.delete(c.id);
      }
      return all;
    });
    for (const check of removed) this.deleted(check);
    return removed.length;
  }

  /** Pause or resume: the flag, the status log and the history event, in the caller's transaction. */
  private async writePaused(check: Check, disabled: boolean, reason: string | null, now: number): Promise<void> {
    await this.store.checks.setDisabled(check.id, disabled, disabled ? reason : null, now);
    // Paused time is neither up nor down; after a resume the state is unknown until a result.
    await this.store.stateChanges.append(check.seq, now, disabled ? 'paused' : 'pending');
    await this.store.history.insertEvent({
      checkSeq: check.seq,
      at: now,
      status: disabled ? 'paused' : 'resumed',
      region: null,
      meta: { event: disabled ? 'disabled' : 'enabled', reason },
    });
  }

  private async setAccountPaused(accountId: string, disabled: boolean, applies: (c: Check) => boolean, reason: string, source: AuditSource): Promise<number> {
    const changed = await this.store.transaction(async () => {
      const now = this.clock.now();
      const targets = (await this.store.checks.list({ accountId, access: null }, { limit: -1, offset: 0, afterSeq: null })).filter(applies);
      for (const current of targets) {
        await this.writePaused(current, disabled, reason, now);
        await this.audit.record(source, accountId, disabled ? 'check.pause' : 'check.resume', checkTarget(current), ['disabled']);
      }
      return targets.map((c) => ({ ...c, disabled, disabledReason: disabled ? reason : null, updatedAt: now, lastStatusChange: now }));
    });
    for (const check of changed) this.saved(check, !disabled);
    return changed.length;
  }
}

const checkTarget = (c: { id: string; name: string }) => ({ kind: 'check', id: c.id, name: c.name });
