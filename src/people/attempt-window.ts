import type { Clock } from '../domain/clock.js';

/**
 * Counts attempts per key over a sliding window, in memory: `charge` answers 0 when one more is
 * allowed (and counts it), else the ms until the oldest counted one ages out. For endpoints that
 * anyone may call and that write or send something (sign-in ceremonies, emailed links).
 */
export class AttemptWindow {
  private readonly attempts = new Map<string, number[]>();

  constructor(
    private readonly clock: Clock,
    private readonly windowMs: number,
    private readonly maxKeys = 10_000,
  ) {}

  charge(key: string, limit: number): number {
    const now = this.clock.now();
    if (this.attempts.size >= this.maxKeys && !this.attempts.has(key)) this.forgetOld(now);
    const recent = (this.attempts.get(key) ?? []).filter((at) => at > now - this.windowMs);
    if (recent.length >= limit) return recent[0]! + this.windowMs - now;
    recent.push(now);
    this.attempts.set(key, recent);
    return 0;
  }

  private forgetOld(now: number): void {
    for (const [key, times] of this.attempts) if (times[times.length - 1]! <= now - this.windowMs) this.attempts.delete(key);
    // Still full of live keys (a flood from many addresses): start over rather than grow.
    if (this.attempts.size >= this.maxKeys) this.attempts.clear();
  }
}
