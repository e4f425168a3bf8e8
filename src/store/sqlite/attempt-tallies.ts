import type { Synchronous } from '../synchronous.js';
import type { AttemptTally, AttemptTallyRepo } from '../attempt-tallies.js';
import type { Db } from '../db.js';

interface TallyRow {
  attempts: number;
  forget_at: number;
}

const toTally = (r: TallyRow): AttemptTally => ({ attempts: r.attempts, forgetAt: r.forget_at });

/** Sign-in attempt tallies (issue 34): store/attempt-tallies.ts over SQLite. */
export function sqliteAttemptTallies(db: Db): Synchronous<AttemptTallyRepo> {
  // Unqualified columns in DO UPDATE are the row already there; a refused reserve updates nothing.
  const reserve = db.prepare(`
    INSERT INTO sign_in_attempts (key, attempts, forget_at) VALUES (@key, 1, @forgetAt)
    ON CONFLICT (key) DO UPDATE SET
      attempts = CASE WHEN forget_at <= @now THEN 1 ELSE attempts + 1 END,
      forget_at = excluded.forget_at
    WHERE forget_at <= @now OR attempts < @limit
    RETURNING attempts, forget_at`);
  const read = db.prepare('SELECT attempts, forget_at FROM sign_in_attempts WHERE key = ?');
  const release = db.prepare('UPDATE sign_in_attempts SET attempts = attempts - 1 WHERE key = ? AND attempts > 0');
  const clear = db.prepare('DELETE FROM sign_in_attempts WHERE key = ?');
  const prune = db.prepare('DELETE FROM sign_in_attempts WHERE forget_at <= ?');
  return {
    reserve: (key, limit, now, windowMs) => {
      const counted = reserve.get({ key, limit, now, forgetAt: now + windowMs }) as TallyRow | undefined;
      if (counted) return { admitted: true, tally: toTally(counted) };
      return { admitted: false, tally: toTally(read.get(key) as TallyRow) };
    },
    release: (key) => void release.run(key),
    clear: (key) => void clear.run(key),
    prune: (now) => prune.run(now).changes,
  };
}
