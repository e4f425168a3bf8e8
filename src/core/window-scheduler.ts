import type { Logger } from '../log.js';
import type { Clock } from '../domain/clock.js';
import type { CheckObserver } from '../domain/check-observer.js';
import { nextBoundary, occurrenceAt, windowCovers, type MaintenanceWindow } from '../domain/maintenance-windows.js';
import type { Store } from '../store/store.js';
import { systemTimers, type Timers } from '../util/job-runner.js';
import type { ChecksService, WindowChange } from './checks-service.js';

/** Node's timers take at most 2^31 - 1 ms; a boundary further out is waited for in steps. */
const LONGEST_WAIT_MS = 2 ** 31 - 1;

export interface WindowSchedulerDeps {
  store: Pick<Store, 'maintenanceWindows' | 'checks'>;
  checks: Pick<ChecksService, 'ofAccount' | 'applyWindowMaintenance'>;
  clock: Clock;
  log: Logger;
  timers?: Timers;
}

/**
 * Puts checks in and out of maintenance as scheduled windows start and end (issue 27). It
 * looks at the windows once per boundary (one timer for the nearest start or end of any
 * window), after every change to a window or a check (a check can enter a window by a new tag
 * or folder), and every minute as a safety net (the job runner): never per probe. What it
 * changes goes through the checks service, so a window acts exactly as manual maintenance does.
 */
export class WindowScheduler implements CheckObserver {
  private timer: unknown = null;
  private soon: NodeJS.Immediate | null = null;
  /** The last pass asked for, and one asked for but not begun (callers in a burst share it). */
  private tail: Promise<void> = Promise.resolve();
  private queued: Promise<void> | null = null;
  private stopped = false;
  /** The window holding each check in maintenance (for its end event); forgotten by a restart. */
  private readonly holding = new Map<string, { id: string; title: string; end: number }>();
  private readonly timers: Timers;
  /** Every window by account as of the last pass: what status pages show, read without the store. */
  private byAccount = new Map<string, MaintenanceWindow[]>();

  constructor(private readonly deps: WindowSchedulerDeps) {
    this.timers = deps.timers ?? systemTimers;
  }

  checkSaved(): void {
    this.poke();
  }

  checkEdited(): void {
    this.poke();
  }

  checkDeleted(): void {}

  /** Looks again in a later turn of the event loop (a burst of changes costs one look). */
  poke(): void {
    if (this.stopped) return;
    this.soon ??= setImmediate(() => {
      this.soon = null;
      void this.reconcile();
    });
  }

  /**
   * Brings every check's window flag in line with the windows in force now; resolves once a pass
   * that began after this call is done. Passes never overlap.
   */
  reconcile(): Promise<void> {
    if (this.queued) return this.queued;
    const run = this.tail
      .then(() => {
        this.queued = null;
        return this.stopped ? undefined : this.pass();
      })
      .catch((err: unknown) => this.deps.log.error({ err }, 'maintenance windows not applied'));
    this.queued = run;
    this.tail = run;
    return run;
  }

  /** The account's windows as of the last pass (a change is seen within a turn of the event loop). */
  windowsOf(accountId: string): readonly MaintenanceWindow[] {
    return this.byAccount.get(accountId) ?? [];
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== null) this.timers.clearTimeout(this.timer);
    this.timer = null;
    if (this.soon) clearImmediate(this.soon);
    this.soon = null;
  }

  private async pass(): Promise<void> {
    const { store, checks, clock } = this.deps;
    const now = clock.now();
    const windows = await store.maintenanceWindows.all();
    const byAccount = new Map<string, MaintenanceWindow[]>();
    for (const w of windows) byAccount.set(w.accountId, [...(byAccount.get(w.accountId) ?? []), w]);
    this.byAccount = byAccount;
    const inForce = windows.flatMap((w) => {
      const o = occurrenceAt(w, now);
      return o === null ? [] : [{ w, o }];
    });
    const wanted = new Map<string, WindowChange>();
    for (const accountId of new Set(inForce.map((x) => x.w.accountId))) {
      const ofAccount = inForce.filter((x) => x.w.accountId === accountId);
      for (const check of await checks.ofAccount(accountId)) {
        const hit = ofAccount.find((x) => windowCovers(x.w, check));
        if (!hit) continue;
        this.holding.set(check.id, { id: hit.w.id, title: hit.w.title, end: hit.o.end });
        if (!check.windowMaintenance) wanted.set(check.id, { check, on: true, at: hit.o.start, window: { id: hit.w.id, title: hit.w.title, end: hit.o.end } });
      }
    }
    const changes = [...wanted.values()];
    for (const id of await store.checks.inWindowMaintenance()) {
      if (await this.stillHeld(id, inForce)) continue;
      const check = await store.checks.byId(id);
      const held = this.holding.get(id);
      this.holding.delete(id);
      if (check) changes.push({ check, on: false, at: Math.min(now, held?.end ?? now), window: held ? { id: held.id, title: held.title } : null });
    }
    if (changes.length > 0) checks.applyWindowMaintenance(changes, now);
    this.arm(windows, now);
  }

  private async stillHeld(id: string, inForce: { w: MaintenanceWindow }[]): Promise<boolean> {
    const check = await this.deps.store.checks.byId(id);
    return check !== null && inForce.some((x) => windowCovers(x.w, check));
  }

  /** One timer, for the nearest start or end of any window. */
  private arm(windows: readonly MaintenanceWindow[], now: number): void {
    if (this.timer !== null) this.timers.clearTimeout(this.timer);
    this.timer = null;
    if (this.stopped) return;
    let next = Infinity;
    for (const w of windows) next = Math.min(next, nextBoundary(w, now) ?? Infinity);
    if (next === Infinity) return;
    this.timer = this.timers.setTimeout(() => {
      this.timer = null;
      void this.reconcile();
    }, Math.min(LONGEST_WAIT_MS, Math.max(0, next - now)));
  }
}
