import type { Clock } from '../domain/clock.js';
import { errors } from '../domain/errors.js';
import type { AttemptTally } from '../store/attempt-tallies.js';
import type { Store } from '../store/store.js';

export interface ThrottleSettings {
  /** Attempts (per person or per address) after which each answer is held back, longer each time. */
  slowAfterFailures: number;
  /** Attempts at one person's password or second factor that are checked in a window; the next are refused with 429. */
  lockAfterFailures: number;
  /** Attempts from one client address (any person) that are checked in a window; the next are refused. */
  addressLockAfterFailures: number;
  /** How long attempts are remembered after the last one, and how long a refusal lasts. */
  windowMinutes: number;
}

/** Whose attempt: the person whose password or code is tried, and the client trying it. */
export interface AttemptBy {
  email: string;
  address: string;
}

const MAX_DELAY_MS = 5_000;

/** The hold-back before answering an attempt that finds `earlier` attempts counted before it. */
export function delayFor(earlier: number, slowAfter: number): number {
  if (earlier < slowAfter) return 0;
  return Math.min(MAX_DELAY_MS, 250 * 2 ** Math.min(20, earlier - slowAfter));
}

/** Retry-After (whole seconds, at least 1) of a tally that refuses until it is forgotten. */
export function retryAfter(tally: AttemptTally, now: number): number {
  return Math.max(1, Math.ceil((tally.forgetAt - now) / 1000));
}

/**
 * Limits guesses at passwords and second factors, per person (email) and per client address
 * (issues 28 and 34). An attempt is counted *before* its password is hashed, in the store: a
 * burst of concurrent guesses is counted one by one, on every central sharing the database,
 * and only the first `lockAfterFailures` are checked. An attempt that proves right is given
 * back; one that signs in clears the person's tally (not the address's: one good password
 * must not hide a spray).
 */
export class SignInThrottle {
  constructor(
    private readonly settings: ThrottleSettings,
    private readonly clock: Clock,
    private readonly store: Store,
  ) {}

  /** Counts the attempt against both tallies, or neither and throws the 429; resolves to the delay (ms) owed. */
  async reserve(by: AttemptBy): Promise<number> {
    const now = this.clock.now();
    const windowMs = this.settings.windowMinutes * 60_000;
    const tallies = this.store.signInAttempts;
    const counted = await this.store.transaction(async () => {
      const person = await tallies.reserve(personKey(by), this.settings.lockAfterFailures, now, windowMs);
      if (!person.admitted) throw errors.rateLimited(retryAfter(person.tally, now));
      const client = await tallies.reserve(addressKey(by), this.settings.addressLockAfterFailures, now, windowMs);
      // Throwing undoes the person's count too: a refused attempt costs no one anything.
      if (!client.admitted) throw errors.rateLimited(retryAfter(client.tally, now));
      return Math.max(person.tally.attempts, client.tally.attempts);
    });
    return delayFor(counted - 1, this.settings.slowAfterFailures);
  }

  /** The attempt proved right (a password confirmed, or a sign-in still owing its second factor). */
  async giveBack(by: AttemptBy): Promise<void> {
    await this.store.transaction(async () => {
      await this.store.signInAttempts.release(personKey(by));
      await this.store.signInAttempts.release(addressKey(by));
    });
  }

  /** Signed in: the person starts afresh; the address gets this attempt back. */
  async signedIn(by: AttemptBy): Promise<void> {
    await this.store.transaction(async () => {
      await this.store.signInAttempts.clear(personKey(by));
      await this.store.signInAttempts.release(addressKey(by));
    });
  }

  /** Forgets tallies past their window (a periodic job). */
  async prune(): Promise<number> {
    return this.store.signInAttempts.prune(this.clock.now());
  }
}

const personKey = (by: AttemptBy) => `u:${by.email.trim().toLowerCase()}`;
const addressKey = (by: AttemptBy) => `a:${by.address}`;
