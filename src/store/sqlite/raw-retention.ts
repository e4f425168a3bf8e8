import type { Synchronous } from '../synchronous.js';
import type { Tier } from '../../domain/plans.js';
import type { Db } from '../db.js';
import type { RetentionStore } from '../rollup-store.js';
import { sqliteRollupRows } from './rollup-rows.js';

/**
 * Deletes for retention, oldest first per check so what is left is always a suffix in time,
 * and raises the check's horizon in the same transaction so statistics never read a stretch
 * that is partly gone.
 */
export function sqliteRetention(db: Db): Synchronous<Omit<RetentionStore, 'transaction'>> {
  const rollupRows = sqliteRollupRows(db);
  const tiers = db.prepare('SELECT c.seq AS seq, a.tier AS tier FROM checks c JOIN accounts a ON a.id = c.account_id ORDER BY c.seq');
  const deleteRaw = db.prepare(
    'DELETE FROM history WHERE id IN (SELECT id FROM history WHERE check_seq = ? AND at < ? ORDER BY at, id LIMIT ?)',
  );
  const deleteMinutes = db.prepare(
    'DELETE FROM rollup_minute WHERE check_seq = ? AND at IN (SELECT at FROM rollup_minute WHERE check_seq = ? AND at < ? ORDER BY at LIMIT ?)',
  );
  const raiseRaw = db.prepare(
    `INSERT INTO retention_horizons (check_seq, raw_from) VALUES (?, ?)
     ON CONFLICT (check_seq) DO UPDATE SET raw_from = max(coalesce(raw_from, excluded.raw_from), excluded.raw_from)`,
  );
  const raiseMinutes = db.prepare(
    `INSERT INTO retention_horizons (check_seq, minutes_from) VALUES (?, ?)
     ON CONFLICT (check_seq) DO UPDATE SET minutes_from = max(coalesce(minutes_from, excluded.minutes_from), excluded.minutes_from)`,
  );
  return {
    openBuckets: () => rollupRows.openBuckets(),
    checkTiers: () => tiers.all() as Array<{ seq: number; tier: Tier }>,
    pruneRaw(seq, before, limit) {
      const deleted = deleteRaw.run(seq, before, limit).changes;
      if (deleted > 0) raiseRaw.run(seq, before);
      return deleted;
    },
    pruneMinutes(seq, before, limit) {
      const deleted = deleteMinutes.run(seq, seq, before, limit).changes;
      if (deleted > 0) raiseMinutes.run(seq, before);
      return deleted;
    },
  };
}
