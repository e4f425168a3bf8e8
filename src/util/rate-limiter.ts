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

/** What the other centrals counted (several centrals): each bucket's requests in their running windows. */
export interface PeerCounts {
  count(bucket: string, now: number): number;
}

/**
 * Fixed one-minute windows per bucket: cheap (one Map entry per active bucket) and exact
 * enough for a per-key budget. Windows are aligned to each bucket's first request. With several
 * centrals, what the others reported counting (at most a second old) counts too.
 */
export class RateLimiter {
  private readonly windows = new Map<string, Window>();
  private lastSweep = 0;
  /** Buckets counted since the last `changed()`: what this central reports to the others. */
  private touched = new Set<string>();
  private peers: PeerCounts | null = null;

  constructor(
    private readonly clock: Clock,
    private readonly windowMs = 60_000,
  ) {}

  /** Several centrals: the others' counts join this central's (a single server has none). */
  shareWith(peers: PeerCounts): void {
    this.peers = peers;
  }

  /** The windows counted since the last call: [bucket, window start, count]. */
  changed(): Array<[string, number, number]> {
    const out: Array<[string, number, number]> = [];
    for (const bucket of this.touched) {
      const w = this.windows.get(bucket);
      if (w) out.push([bucket, w.start, w.count]);
    }
    this.touched = new Set();
    return out;
  }

  /** Counts one request; throws 429 (with headers) when the bucket is spent. */
  take(bucket: string, limit: number): RateState {
    const now = this.clock.now();
    this.sweep(now);
    const w = this.window(bucket, now);
    const others = this.peers?.count(bucket, now) ?? 0;
    const state = counted(w, others, limit, this.admit(w, others, limit, now));
    if (this.peers) this.touched.add(bucket);
    return state;
  }

  /** Seconds until the window resets; throws the 429 when it is spent. */
  private admit(w: Window, others: number, limit: number, now: number): number {
    const reset = Math.max(1, Math.ceil((w.start + this.windowMs - now) / 1000));
    if (w.count + others >= limit) throw errors.rateLimited(reset).withHeaders(headersOf({ limit, remaining: 0, reset }));
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
      const others = this.peers?.count(bucket, now) ?? 0;
      return { bucket, w, others, limit, reset: this.admit(w, others, limit, now) };
    });
    if (this.peers) for (const { bucket } of windows) this.touched.add(bucket);
    return windows.map(({ w, others, limit, reset }) => counted(w, others, limit, reset));
  }

  private sweep(now: number): void {
    if (now - this.lastSweep < this.windowMs) return;
    this.lastSweep = now;
    for (const [bucket, w] of this.windows) if (now - w.start >= this.windowMs) this.windows.delete(bucket);
  }
}

function counted(w: Window, others: number, limit: number, reset: number): RateState {
  w.count++;
  return { limit, remaining: Math.max(0, limit - w.count - others), reset };
}

export function headersOf(state: RateState): Record<string, string> {
  return {
    'RateLimit-Limit': String(state.limit),
    'RateLimit-Remaining': String(state.remaining),
    'RateLimit-Reset': String(state.reset),
  };
}
