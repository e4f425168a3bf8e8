
/** What one key (a person, a client address) has tried within its window. */
export interface AttemptTally {
  /** Attempts counted and not given back since the window began. */
  attempts: number;
  /** When the tally is forgotten (ms): its last counted attempt plus the window. */
  forgetAt: number;
}

/**
 * Counts of password and second-factor attempts (issue 34), kept in the store so every central
 * on one database counts the same guesses. Each change is one statement, so concurrent
 * attempts, here or on another central, cannot both take the last one left.
 */
export interface AttemptTallyRepo {
  /**
   * Counts one attempt against `key` unless it already holds `limit` unforgotten ones; a tally
   * past its `forgetAt` starts again from one. Counting moves `forgetAt` to `now + windowMs`;
   * a refusal leaves it, so a locked key opens on time however often it is tried.
   */
  reserve(key: string, limit: number, now: number, windowMs: number): Promise<{ admitted: boolean; tally: AttemptTally }>;
  /** Gives one counted attempt back (it proved right). */
  release(key: string): Promise<void>;
  /** Forgets the key's tally (the person signed in). */
  clear(key: string): Promise<void>;
  /** Deletes tallies forgotten before `now`; returns how many. */
  prune(now: number): Promise<number>;
}
