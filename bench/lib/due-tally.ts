import { nextDue } from '../../src/engine/timing-wheel.js';

/** What a window's probe rows say, counted by the due times they served. */
export interface DueCount {
  /** Due times of the window (every check's stable phase). */
  due: number;
  /** Due times a row served. */
  ran: number;
  /** Of those, started at most `onTimeMs` after the due time. */
  onTime: number;
  /** Of those, not up. */
  failed: number;
  lagP99: number;
}

/**
 * Probe rows matched to the due instants they served (a row's start time serves the last due
 * time at or before it), each due instant of the window [t0, t1) counted once.
 */
export class DueTally {
  private readonly served = new Set<string>();
  private readonly lags: number[] = [];
  private onTime = 0;
  private failed = 0;

  constructor(
    private readonly ids: readonly string[],
    private readonly intervalMs: number,
    private readonly t0: number,
    private readonly t1: number,
    private readonly onTimeMs: number,
  ) {}

  /** One probe row; true when it served a due time of the window not served before. */
  add(id: string, at: number, status: string): boolean {
    const d = nextDue(id, this.intervalMs, at - this.intervalMs + 1);
    if (d < this.t0 || d >= this.t1 || this.served.has(`${id}@${d}`)) return false;
    this.served.add(`${id}@${d}`);
    this.lags.push(at - d);
    if (at - d <= this.onTimeMs) this.onTime++;
    if (status !== 'up') this.failed++;
    return true;
  }

  count(): DueCount {
    let due = 0;
    for (const id of this.ids) for (let t = nextDue(id, this.intervalMs, this.t0); t < this.t1; t += this.intervalMs) due++;
    const lags = [...this.lags].sort((a, b) => a - b);
    return {
      due, ran: this.served.size, onTime: this.onTime, failed: this.failed,
      lagP99: lags[Math.max(0, Math.ceil(lags.length * 0.99) - 1)] ?? 0,
    };
  }
}
