import type { ProbeDispatcher } from '../../src/engine/dispatcher.js';
import type { ProbeResult, ProbeTask } from '../../src/domain/probe-types.js';

interface Held {
  task: ProbeTask;
  startedAt: number | null;
  resolve: (result: ProbeResult) => void;
}

/**
 * A pool with `slots` probe slots that the test drives by hand: probes beyond the slots queue
 * (as the real dispatcher's do), a probe starts when a slot takes it (its startedAt is the
 * clock then) and finishes, healthy, only when the test calls finishOldest(). Overload without
 * a timing threshold.
 */
export class HeldDispatcher implements ProbeDispatcher {
  private readonly running: Held[] = [];
  private readonly waiting: Held[] = [];
  constructor(
    private readonly slots: number,
    private readonly now: () => number,
  ) {}

  get inFlight(): number {
    return this.running.length;
  }

  get queued(): number {
    return this.waiting.length;
  }

  run(task: ProbeTask): Promise<ProbeResult> {
    return new Promise((resolve) => {
      this.waiting.push({ task, startedAt: null, resolve });
      this.fill();
    });
  }

  /** Finishes the probe that has run longest; a waiting one takes its slot at the current time. */
  finishOldest(): ProbeTask {
    const held = this.running.shift();
    if (!held) throw new Error('no probe is running');
    held.resolve({
      ok: true, statusCode: 200, responseTime: 5, timing: { dns: 0, connect: 1, tls: 0, ttfb: 4, total: 5 },
      error: null, snippet: null, ssl: null, location: null, startedAt: held.startedAt!,
    });
    this.fill();
    return held.task;
  }

  private fill(): void {
    while (this.running.length < this.slots && this.waiting.length > 0) {
      const next = this.waiting.shift()!;
      next.startedAt = this.now();
      this.running.push(next);
    }
  }

  async close(): Promise<void> {
    for (const held of [...this.running.splice(0), ...this.waiting.splice(0)]) {
      held.resolve({ ok: false, statusCode: null, responseTime: null, timing: null, error: 'Probe pool is closed', snippet: null, ssl: null, location: null, startedAt: this.now() });
    }
  }
}
