import type { Clock } from '../domain/clock.js';
import { cronProblem } from '../domain/cron.js';
import { displayName } from '../domain/display-name.js';
import { errors } from '../domain/errors.js';
import { currentOrNext, occurrenceAt, type MaintenanceWindow } from '../domain/maintenance-windows.js';
import type { KeyAccess } from '../domain/records.js';
import { newId } from '../domain/secrets.js';
import { tagProblem, uniqueTags } from '../domain/tags.js';
import type { Store } from '../store/store.js';
import { AuditLog, type AuditTarget } from './audit-log.js';
import { isTimeZone } from './check-settings.js';
import { parseIsoInstant } from './iso-date.js';
import { accessAllows, type Principal } from './principal.js';
import type { CreateMaintenanceWindowInput, UpdateMaintenanceWindowInput } from './schemas/maintenance-windows.js';

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/** The API's view of a window: its fields, whether it is in force now, and its current or next occurrence. */
export function windowView(w: MaintenanceWindow, now: number) {
  const next = currentOrNext(w, now);
  return {
    id: w.id,
    title: w.title,
    description: w.description,
    checkIds: w.checkIds,
    folders: w.folders,
    tags: w.tags,
    allChecks: w.allChecks,
    startsAt: iso(w.startsAt),
    endsAt: iso(w.endsAt),
    schedule: w.schedule,
    durationMinutes: w.durationMinutes,
    timezone: w.timezone,
    active: occurrenceAt(w, now) !== null,
    nextStartsAt: iso(next?.start ?? null),
    nextEndsAt: iso(next?.end ?? null),
    createdAt: new Date(w.createdAt).toISOString(),
    updatedAt: new Date(w.updatedAt).toISOString(),
  };
}
export type WindowView = ReturnType<typeof windowView>;

const windowTarget = (w: MaintenanceWindow): AuditTarget => ({ kind: 'maintenance_window', id: w.id, name: w.title });
const sent = (input: UpdateMaintenanceWindowInput) => Object.keys(input).filter((k) => input[k as keyof UpdateMaintenanceWindowInput] !== undefined);

/**
 * Scheduled maintenance windows of an account (issue 27): the one owner of their mutations.
 * A key restricted to checks or folders sees and manages only windows wholly within its reach
 * (named checks it may access and folders it holds; never tags or every check).
 */
export class MaintenanceWindowsService {
  private readonly listeners: Array<() => void> = [];
  private readonly audit: AuditLog;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {
    this.audit = new AuditLog(store, clock);
  }

  /** Told after a window is created, changed or deleted has committed (the scheduler looks again). */
  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  async list(principal: Principal): Promise<WindowView[]> {
    const now = this.clock.now();
    const all = await this.store.maintenanceWindows.listForAccount(principal.account.id);
    const visible: WindowView[] = [];
    for (const w of all) if (await this.withinReach(principal.access, w)) visible.push(windowView(w, now));
    return visible;
  }

  async get(principal: Principal, id: string): Promise<WindowView> {
    return windowView(await this.own(principal, id), this.clock.now());
  }

  async create(principal: Principal, input: CreateMaintenanceWindowInput): Promise<WindowView> {
    const now = this.clock.now();
    const draft: MaintenanceWindow = {
      id: newId('mtw'),
      accountId: principal.account.id,
      title: '',
      description: null,
      checkIds: [],
      folders: [],
      tags: [],
      allChecks: false,
      startsAt: null,
      endsAt: null,
      schedule: null,
      durationMinutes: null,
      timezone: null,
      createdAt: now,
      updatedAt: now,
    };
    const window = await this.validated(principal, draft, input);
    await this.store.transaction(async () => {
      await this.store.maintenanceWindows.insert(window);
      await this.audit.record(principal, window.accountId, 'maintenance_window.create', windowTarget(window), sent(input));
      this.changed();
    });
    return windowView(window, now);
  }

  async update(principal: Principal, id: string, input: UpdateMaintenanceWindowInput): Promise<WindowView> {
    const current = await this.own(principal, id);
    const now = this.clock.now();
    const next = await this.validated(principal, { ...current, updatedAt: now }, input);
    await this.store.transaction(async () => {
      await this.store.maintenanceWindows.update(next);
      await this.audit.record(principal, next.accountId, 'maintenance_window.update', windowTarget(next), sent(input));
      this.changed();
    });
    return windowView(next, now);
  }

  async remove(principal: Principal, id: string): Promise<{ id: string; deleted: true }> {
    const current = await this.own(principal, id);
    await this.store.transaction(async () => {
      await this.store.maintenanceWindows.delete(id);
      await this.audit.record(principal, current.accountId, 'maintenance_window.delete', windowTarget(current));
      this.changed();
    });
    return { id, deleted: true };
  }

  private changed(): void {
    this.store.afterCommit(() => {
      for (const listener of this.listeners) listener();
    });
  }

  /** A window the principal may manage: 404 unknown, 403 another account's or out of the key's reach. */
  private async own(principal: Principal, id: string): Promise<MaintenanceWindow> {
    const w = await this.store.maintenanceWindows.byId(id);
    if (!w) throw errors.notFound(`Maintenance window ${id} not found`);
    if (w.accountId !== principal.account.id) throw errors.forbidden('This maintenance window belongs to another account');
    if (!(await this.withinReach(principal.access, w))) throw errors.forbidden('This key is restricted to some checks or folders; this window reaches beyond them');
    return w;
  }

  private async withinReach(access: KeyAccess | null, w: MaintenanceWindow): Promise<boolean> {
    if (!access) return true;
    if (w.allChecks || w.tags.length > 0) return false;
    if (!w.folders.every((f) => access.folders.includes(f))) return false;
    for (const id of w.checkIds) {
      const check = await this.store.checks.byId(id);
      if (!check || !accessAllows(access, check)) return false;
    }
    return true;
  }

  /** The window with the input applied, every rule checked (a schema cannot express them). */
  private async validated(principal: Principal, base: MaintenanceWindow, input: UpdateMaintenanceWindowInput): Promise<MaintenanceWindow> {
    const w: MaintenanceWindow = { ...base };
    const access = principal.access;
    if (input.title !== undefined) w.title = displayName(input.title, 'title');
    if (input.description !== undefined) w.description = input.description?.trim() || null;
    if (input.checkIds !== undefined) w.checkIds = await this.ownChecks(principal, input.checkIds);
    if (input.folders !== undefined) {
      w.folders = [...new Set(input.folders.map((f) => f.trim()))].filter((f) => f !== '');
      const outside = access ? w.folders.find((f) => !access.folders.includes(f)) : undefined;
      if (outside !== undefined) throw errors.forbidden(`This key is not allowed to put folder ${JSON.stringify(outside)} in maintenance`);
    }
    if (input.tags !== undefined) {
      for (const tag of input.tags) {
        const problem = tagProblem(tag);
        if (problem !== null) throw errors.badRequest(`tags: ${problem}`);
      }
      w.tags = uniqueTags(input.tags);
    }
    if (input.allChecks !== undefined) w.allChecks = input.allChecks;
    if (access && (w.allChecks || w.tags.length > 0)) {
      throw errors.forbidden('A key restricted to some checks or folders can only name checkIds and folders within its reach (not tags or allChecks)');
    }
    if (!w.allChecks && w.checkIds.length === 0 && w.folders.length === 0 && w.tags.length === 0) {
      throw errors.badRequest('Say which checks: checkIds, folders, tags, or allChecks: true');
    }
    if (input.startsAt !== undefined) w.startsAt = instant(input.startsAt, 'startsAt');
    if (input.endsAt !== undefined) w.endsAt = instant(input.endsAt, 'endsAt');
    if (input.schedule !== undefined) w.schedule = input.schedule?.trim() || null;
    if (input.durationMinutes !== undefined) w.durationMinutes = input.durationMinutes;
    if (input.timezone !== undefined) w.timezone = input.timezone;
    timing(w);
    return w;
  }

  private async ownChecks(principal: Principal, ids: readonly string[]): Promise<string[]> {
    const unique = [...new Set(ids.map((id) => id.trim()))];
    for (const id of unique) {
      const check = await this.store.checks.byId(id);
      if (!check || check.accountId !== principal.account.id) throw errors.badRequest(`checkIds: ${id} is not a check of this account`);
      if (!accessAllows(principal.access, check)) throw errors.forbidden(`This key is not allowed to put check ${id} in maintenance`);
    }
    return unique;
  }
}

/** An ISO 8601 instant of the input in ms (null stays null); a 400 naming the field otherwise. */
export function instant(value: string | null, field: string): number | null {
  if (value === null) return null;
  const ms = parseIsoInstant(value);
  if (Number.isNaN(ms)) throw errors.badRequest(`${field} must be an ISO 8601 date-time`);
  return ms;
}

/** One-off (startsAt and endsAt) or recurring (schedule and durationMinutes, timezone UTC by default). */
function timing(w: MaintenanceWindow): void {
  if (w.startsAt !== null && w.endsAt !== null && w.endsAt <= w.startsAt) throw errors.badRequest('endsAt must be after startsAt');
  if (w.schedule === null) {
    if (w.startsAt === null || w.endsAt === null) {
      throw errors.badRequest('A window needs startsAt and endsAt, or a recurring schedule with durationMinutes');
    }
    if (w.durationMinutes !== null || w.timezone !== null) throw errors.badRequest('durationMinutes and timezone belong to a recurring schedule');
    return;
  }
  w.timezone ??= 'UTC';
  if (!isTimeZone(w.timezone)) throw errors.badRequest(`timezone is not a known IANA time zone: ${w.timezone}`);
  const fields = w.schedule.split(/\s+/).length;
  if (fields !== 5) throw errors.badRequest(`schedule must be a cron expression of 5 fields (minute hour day-of-month month day-of-week); it has ${fields}`);
  const problem = cronProblem(w.schedule, w.timezone);
  if (problem !== null) throw errors.badRequest(`schedule is not a valid cron expression: ${problem}`);
  if (w.durationMinutes === null) throw errors.badRequest('A recurring schedule needs durationMinutes');
}
