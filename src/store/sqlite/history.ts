import type { Synchronous } from '../synchronous.js';
import type { Db } from '../db.js';
import type { HistoryQuery, HistoryRepo, RecentResult } from '../store.js';
import { StatementCache } from './statements.js';
import { containsPattern, HISTORY_COLUMNS, resultValues, rowToHistory, type HistoryRowDb } from '../rows/history.js';

function where(q: HistoryQuery): { sql: string; params: unknown[] } {
  const parts = ['check_seq = ?'];
  const params: unknown[] = [q.checkSeq];
  if (q.from !== null) {
    parts.push('at >= ?');
    params.push(q.from);
  }
  if (q.to !== null) {
    parts.push('at <= ?');
    params.push(q.to);
  }
  if (q.status === 'up') parts.push("kind != 'event' AND status = 'up'");
  else if (q.status === 'down') parts.push("kind != 'event' AND status = 'down'");
  else if (q.status === 'error') parts.push("kind != 'event' AND status = 'down' AND status_code IS NULL");
  if (q.q !== null) {
    parts.push("(error LIKE ? ESCAPE '\\' OR snippet LIKE ? ESCAPE '\\')");
    const pattern = containsPattern(q.q);
    params.push(pattern, pattern);
  }
  return { sql: parts.join(' AND '), params };
}

export function sqliteHistory(db: Db): Synchronous<HistoryRepo> {
  const cache = new StatementCache(db);
  const insertEvent = db.prepare(
    "INSERT INTO history (check_seq, at, kind, status, region, meta) VALUES (?, ?, 'event', ?, ?, ?)",
  );
  const insertResult = db.prepare(
    `INSERT INTO history (${HISTORY_COLUMNS.join(', ')}) VALUES (${HISTORY_COLUMNS.map(() => '?').join(', ')})`,
  );
  const forCheck = db.prepare('SELECT * FROM history WHERE check_seq = ? ORDER BY at DESC, id DESC LIMIT ?');
  // Only up and down rows: results, and the `missed` events of heartbeats (the one event with either status).
  const recentResults = db.prepare(
    "SELECT at, status, response_time AS responseTime FROM history WHERE check_seq = ? AND status IN ('up', 'down') ORDER BY at DESC, id DESC LIMIT ?",
  );
  const deleteForCheck = db.prepare('DELETE FROM history WHERE check_seq = ?');
  const lastAt = db.prepare('SELECT max(at) FROM history WHERE check_seq = ? AND kind = ?').pluck();
  return {
    insertEvent: (e) => void insertEvent.run(e.checkSeq, e.at, e.status, e.region, JSON.stringify(e.meta)),
    // Spread: better-sqlite3 binds an array of values about 0.5 µs slower than the same values as arguments.
    insertResult: (r) => void insertResult.run(...resultValues(r)),
    list(q, page) {
      const w = where(q);
      const before = page.before === null ? '' : ' AND (at < ? OR (at = ? AND id < ?))';
      const params = page.before === null ? w.params : [...w.params, page.before[0], page.before[0], page.before[1]];
      const stmt = cache.get(`SELECT * FROM history WHERE ${w.sql}${before} ORDER BY at DESC, id DESC LIMIT ? OFFSET ?`);
      return (stmt.all(...params, page.limit, page.offset) as HistoryRowDb[]).map(rowToHistory);
    },
    count(q) {
      const w = where(q);
      return cache.get(`SELECT count(*) FROM history WHERE ${w.sql}`).pluck().get(...w.params) as number;
    },
    forCheck: (seq, limit) => (forCheck.all(seq, limit) as HistoryRowDb[]).map(rowToHistory),
    recentResults: (seq, limit) => recentResults.all(seq, limit) as RecentResult[],
    deleteForCheck: (seq) => void deleteForCheck.run(seq),
    lastAt: (seq, kind) => (lastAt.get(seq, kind) as number | null) ?? null,
  };
}
