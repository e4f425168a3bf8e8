/**
 * Tells when probing is past what the machine can do. Past capacity the dispatcher queues:
 * probes start late (never failed for it: a probe's timeout starts when a worker takes it),
 * and a check whose probe still waits when it is due again is not queued twice (its waiting
 * probe serves both due times; `merged` counts those). This watches how late probes start
 * against their due time and says so once on crossing into overload, with the figures, and
 * once on coming back.
 */

/** A probe starting this late after its due time means the queue, not the wheel, holds it. */
export const OVER_CAPACITY_LAG_MS = 5_000;
/** Rates are reported over windows this long. */
const WINDOW_MS = 10_000;

export interface CapacityReport {
  /** How late the last recorded probe started after its due time (ms). */
  lagMs: number;
  /** Probes waiting for a free worker slot. */
  queued: number;
  /** Due probes per second and probes completed per second over the last full window. */
  duePerSecond: number;
  completedPerSecond: number;
  /** Due times served by a probe that was already waiting (since start). */
  merged: number;
  overCapacity: boolean;
}

export interface CapacityLog {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

export class CapacityMonitor {
  private lagMs = 0;
  private over = false;
  private merged = 0;
  private windowStart: number;
  private dueInWindow = 0;
  private doneInWindow = 0;
  /** Until a first window is complete, the rates come from the one under way. */
  private rates: { duePerSecond: number; completedPerSecond: number } | null = null;
  private lastNow: number;

  constructor(
    private readonly log: CapacityLog,
    private readonly queued: () => number,
    now: number,
  ) {
    this.windowStart = now;
    this.lastNow = now;
  }

  /** A probe came due (`merged`: its check's previous probe was still waiting or running). */
  due(now: number, merged: boolean): void {
    this.roll(now);
    this.dueInWindow++;
    if (merged) this.merged++;
  }

  /** A probe's result arrived: it started `startedAt` for a due time `dueAt`. */
  completed(dueAt: number, startedAt: number, now: number): void {
    this.roll(now);
    this.doneInWindow++;
    this.lagMs = Math.max(0, startedAt - dueAt);
    const over = this.lagMs >= OVER_CAPACITY_LAG_MS;
    if (over === this.over) return;
    this.over = over;
    const figures = this.report();
    if (over) {
      this.log.warn(
        figures,
        `probe engine over capacity: probes start ${Math.round(figures.lagMs)} ms late with ${figures.queued} waiting; ` +
          `${figures.duePerSecond.toFixed(0)} probes/s due against ${figures.completedPerSecond.toFixed(0)}/s completed. ` +
          'Probes run late, never failed for it; fewer checks, longer intervals or more cores bring it back',
      );
    } else {
      this.log.info(figures, `probe engine back within capacity: probes start ${Math.round(figures.lagMs)} ms late`);
    }
  }

  report(): CapacityReport {
    const rates = this.rates ?? this.windowRates(this.lastNow - this.windowStart);
    return { lagMs: this.lagMs, queued: this.queued(), ...rates, merged: this.merged, overCapacity: this.over };
  }

  private windowRates(elapsed: number): { duePerSecond: number; completedPerSecond: number } {
    const seconds = Math.max(elapsed, 1000) / 1000;
    return { duePerSecond: this.dueInWindow / seconds, completedPerSecond: this.doneInWindow / seconds };
  }

  private roll(now: number): void {
    this.lastNow = now;
    const elapsed = now - this.windowStart;
    if (elapsed < WINDOW_MS) return;
    this.rates = this.windowRates(elapsed);
    this.windowStart = now;
    this.dueInWindow = 0;
    this.doneInWindow = 0;
  }
}
