import type { Clock } from '../domain/clock.js';
import { errors } from '../domain/errors.js';
import { Lru } from '../util/lru.js';

export interface ThrottleSettings {
  /** Failures (per person or per address) after which each answer is held back, longer each time. */
  slowAfterFailures: number;
  /** Failures for one email address after which its sign-ins are refused with 429 for the window. */
  lockAfterFailures: number;
  /** Failures from one client address (any email) after which its sign-ins are refused. */
  addressLockAfterFailures: number;
  /** How long failures are remembered after the last one, and how long a refusal lasts. */
  windowMinutes: number;
}

interface Tally {
  failures: number;
  forgetAt: number;
}

const MAX_DELAY_MS = 5_000;

/**
 * Slows and then refuses repeated failed sign-ins, per person (email) and per client address
 * (issue 28 item 2). Memory only, bounded: a restart forgets, which an attacker cannot cause.
 */
export class SignInThrottle {
  private readonly tallies = new Lru<string, Tally>(100_000);

  constructor(
    private readonly settings: ThrottleSettings,
    private readonly clock: Clock,
  ) {}

  /** Throws the 429 while either is refused; otherwise the delay (ms) owed before answering. */
  admit(email: string, address: string): number {
    const now = this.clock.now();
    const user = this.tally(`u:${email.toLowerCase()}`, now);
    const addr = this.tally(`a:${address}`, now);
    const refusals = [
      user && user.failures >= this.settings.lockAfterFailures ? user.forgetAt : 0,
      addr && addr.failures >= this.settings.addressLockAfterFailures ? addr.forgetAt : 0,
    ];
    const until = Math.max(...refusals);
    if (until > now) throw errors.rateLimited(Math.max(1, Math.ceil((until - now) / 1000)));
    const failures = Math.max(user?.failures ?? 0, addr?.failures ?? 0);
    if (failures < this.settings.slowAfterFailures) return 0;
    return Math.min(MAX_DELAY_MS, 250 * 2 ** (failures - this.settings.slowAfterFailures));
  }

  failed(email: string, address: string): void {
    const now = this.clock.now();
    for (const key of [`u:${email.toLowerCase()}`, `a:${address}`]) {
      const t = this.tally(key, now) ?? { failures: 0, forgetAt: 0 };
      this.tallies.set(key, { failures: t.failures + 1, forgetAt: now + this.settings.windowMinutes * 60_000 });
    }
  }

  /** A success clears the person's tally (not the address's: one good password must not hide a spray). */
  succeeded(email: string): void {
    this.tallies.delete(`u:${email.toLowerCase()}`);
  }

  private tally(key: string, now: number): Tally | null {
    const t = this.tallies.get(key);
    if (!t) return null;
    if (t.forgetAt <= now) {
      this.tallies.delete(key);
      return null;
    }
    return t;
  }
}
