import type { Clock } from '../domain/clock.js';
import { errors } from '../domain/errors.js';

export interface RateState {
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  reset: number;
}

interface Window {
  start: number;
  count: number;
}

/**
 * Fixed one-minute windows per bucket: cheap (one Map entry per active bucket) and exact
 * enough for a per-key budget. Windows are aligned to each bucket's first request.
 */
export class RateLimiter {
  private readonly windows = new Map<string, Window>();
  private lastSweep = 0;

  constructor(
    private readonly clock: Clock,
    private readonly windowMs = 60_000,
  ) {}

  /** Counts one request; throws 429 (with headers) when the bucket is spent. */
  take(bucket: string, limit: number): RateState {
    const now = this.clock.now();
    this.sweep(now);
    const w = this.window(bucket, now);
    return counted(w, limit, this.admit(w, limit, now));
  }

  /** Seconds until the window resets; throws the 429 when it is spent. */
  private admit(w: Window, limit: number, now: number): number {
    const reset = Math.max(1, Math.ceil((w.start + this.windowMs - now) / 1000));
    if (w.count >= limit) throw errors.rateLimited(reset).withHeaders(headersOf({ limit, remaining: 0, reset }));
    return reset;
  }

  private window(bucket: string, now: number): Window {
    let w = this.windows.get(bucket);
    if (!w || now - w.start >= this.windowMs) {
      w = { start: now, count: 0 };
      this.windows.set(bucket, w);
    }
    return w;
  }

  /**
   * Counts one request against every bucket, or against none when any is spent: a refused
   * request costs nothing, so a key retrying after its 429 cannot use up a shared budget.
   */
  takeAll(buckets: ReadonlyArray<readonly [bucket: string, limit: number]>): RateState[] {
    const now = this.clock.now();
    this.sweep(now);
    const windows = buckets.map(([bucket, limit]) => {
      const w = this.window(bucket, now);
      return { w, limit, reset: this.admit(w, limit, now) };
    });
    return windows.map(({ w, limit, reset }) => counted(w, limit, reset));
  }

  private sweep(now: number): void {
    if (now - this.lastSweep < this.windowMs) return;
    this.lastSweep = now;
    for (const [bucket, w] of this.windows) if (now - w.start >= this.windowMs) this.windows.delete(bucket);
  }
}

function counted(w: Window, limit: number, reset: number): RateState {
  w.count++;
  return { limit, remaining: limit - w.count, reset };
}

export function headersOf(state: RateState): Record<string, string> {
  return {
    'RateLimit-Limit': String(state.limit),
    'RateLimit-Remaining': String(state.remaining),
    'RateLimit-Reset': String(state.reset),
  };
}
