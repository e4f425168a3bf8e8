import type { ManualClock } from '../../src/domain/clock.js';
import type { Timers } from '../../src/util/job-runner.js';

/** Timers on a manual clock: `advance` fires what falls due, in order, moving the clock to each. */
export class FakeTimers implements Timers {
  private pending: Array<{ at: number; fn: () => void; id: number }> = [];
  private nextId = 1;
  constructor(readonly clock: ManualClock) {}
  setTimeout(fn: () => void, ms: number): unknown {
    const id = this.nextId++;
    this.pending.push({ at: this.clock.now() + ms, fn, id });
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.pending = this.pending.filter((t) => t.id !== handle);
  }
  get count(): number {
    return this.pending.length;
  }
  /** When the next timer is due (null: none). */
  get nextAt(): number | null {
    return this.pending.length === 0 ? null : Math.min(...this.pending.map((t) => t.at));
  }
  async advance(ms: number): Promise<void> {
    const end = this.clock.now() + ms;
    for (let i = 0; i < 10_000; i++) {
      await settle(); // a run in progress finishes first, and may arm its next
      const due = this.pending.filter((t) => t.at <= end).sort((a, b) => a.at - b.at || a.id - b.id)[0];
      if (!due) break;
      this.pending = this.pending.filter((t) => t !== due);
      this.clock.set(Math.max(this.clock.now(), due.at));
      due.fn();
      await settle();
    }
    this.clock.set(end);
  }
}

/** Lets promise callbacks run (a job's returned promise settling). */
export const settle = () => new Promise<void>((resolve) => setImmediate(resolve));
