import type { Synchronous } from '../synchronous.js';
import type { Db } from '../db.js';
import type { LoggedStatus, StateChangeRepo } from '../store.js';

export function sqliteStateChanges(db: Db): Synchronous<StateChangeRepo> {
  const append = db.prepare('INSERT INTO state_changes (check_seq, at, status) VALUES (?, ?, ?)');
  const before = db.prepare('SELECT at, status FROM state_changes WHERE check_seq = ? AND at < ? ORDER BY at DESC, rowid DESC LIMIT 1');
  const inside = db.prepare('SELECT at, status FROM state_changes WHERE check_seq = ? AND at >= ? AND at <= ? ORDER BY at, rowid');
  const del = db.prepare('DELETE FROM state_changes WHERE check_seq = ?');
  type Row = { at: number; status: LoggedStatus };
  return {
    append: (seq, at, status) => void append.run(seq, at, status),
    between(seq, from, to) {
      const prior = before.get(seq, from) as Row | undefined;
      const rows = inside.all(seq, from, to) as Row[];
      return prior ? [prior, ...rows] : rows;
    },
    deleteForCheck: (seq) => void del.run(seq),
  };
}
