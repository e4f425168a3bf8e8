import type { Synchronous } from '../synchronous.js';
import type { HistoryKind, HistoryRow } from '../../domain/records.js';
import type { Db } from '../db.js';
import type { HistoryQuery, HistoryRepo, RecentResult } from '../store.js';
import { parseJson, StatementCache } from './statements.js';

const escapeLike = (q: string) => q.replace(/[\\%_]/g, (c) => `\\${c}`);

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
    const pattern = `%${escapeLike(q.q)}%`;
    params.push(pattern, pattern);
  }
  return { sql: parts.join(' AND '), params };
}

interface HistoryRowDb {
  id: number;
  check_seq: number;
  at: number;
  kind: string;
  status: string;
  status_code: number | null;
  response_time: number | null;
  dns: number | null;
  connect: number | null;
  tls: number | null;
  ttfb: number | null;
  total: number | null;
  error: string | null;
  region: string | null;
  snippet: string | null;
  meta: string | null;
}

export function rowToHistory(r: HistoryRowDb): HistoryRow {
  return {
    id: r.id,
    checkSeq: r.check_seq,
    at: r.at,
    kind: r.kind as HistoryKind,
    status: r.status,
    statusCode: r.status_code,
    responseTime: r.response_time,
    timing:
      r.total === null
        ? null
        : { dns: r.dns ?? 0, connect: r.connect ?? 0, tls: r.tls ?? 0, ttfb: r.ttfb ?? 0, total: r.total },
    error: r.error,
    region: r.region,
    snippet: r.snippet,
    meta: parseJson<Record<string, unknown>>(r.meta),
  };
}

export function sqliteHistory(db: Db): Synchronous<HistoryRepo> {
  const cache = new StatementCache(db);
  const insertEvent = db.prepare(
    "INSERT INTO history (check_seq, at, kind, status, region, meta) VALUES (?, ?, 'event', ?, ?, ?)",
  );
  const insertResult = db.prepare(
    `INSERT INTO history (check_seq, at, kind, status, status_code, response_time, dns, connect, tls, ttfb, total, error, region, snippet, meta)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
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
    insertResult: (r) => {
      const t = r.timing;
      insertResult.run(
        r.checkSeq, r.at, r.kind, r.status, r.statusCode, r.responseTime,
        t?.dns ?? null, t?.connect ?? null, t?.tls ?? null, t?.ttfb ?? null, t?.total ?? null,
        r.error, r.region, r.snippet, r.meta === null ? null : JSON.stringify(r.meta),
      );
    },
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
