import type { AttemptTally, AttemptTallyRepo } from '../attempt-tallies.js';
import type { PgDb, Row } from './db.js';
import type { Async } from './types.js';

const toTally = (r: Row): AttemptTally => ({ attempts: r.attempts as number, forgetAt: r.forget_at as number });

/**
 * Sign-in attempt tallies (issue 34): store/sqlite/attempt-tallies.ts over PostgreSQL. The
 * upsert takes the row's lock, so centrals reserving the same key at once queue on it and each
 * sees the count the one before left.
 */
export function pgAttemptTallies(db: PgDb): Async<AttemptTallyRepo> {
  return {
    async reserve(key, limit, now, windowMs) {
      const counted = await db.one(
        `INSERT INTO sign_in_attempts AS t (key, attempts, forget_at) VALUES ($1, 1, $2)
         ON CONFLICT (key) DO UPDATE SET
           attempts = CASE WHEN t.forget_at <= $3 THEN 1 ELSE t.attempts + 1 END,
           forget_at = EXCLUDED.forget_at
         WHERE t.forget_at <= $3 OR t.attempts < $4
         RETURNING attempts, forget_at`,
        [key, now + windowMs, now, limit],
      );
      if (counted) return { admitted: true, tally: toTally(counted) };
      // Refused: the row is there (a refusal needs one); read when it opens again.
      const held = await db.one('SELECT attempts, forget_at FROM sign_in_attempts WHERE key = $1', [key]);
      return { admitted: false, tally: held ? toTally(held) : { attempts: limit, forgetAt: now } };
    },
    release: async (key) => void (await db.run('UPDATE sign_in_attempts SET attempts = attempts - 1 WHERE key = $1 AND attempts > 0', [key])),
    clear: async (key) => void (await db.run('DELETE FROM sign_in_attempts WHERE key = $1', [key])),
    prune: (now) => db.run('DELETE FROM sign_in_attempts WHERE forget_at <= $1', [now]),
  };
}
