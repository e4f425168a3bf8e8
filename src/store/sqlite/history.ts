import type { HistoryKind, HistoryRow } from '../../core/records.js';
import type { Db } from '../db.js';
import type { HistoryRepo } from '../store.js';
import { parseJson } from './statements.js';

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

export function sqliteHistory(db: Db): HistoryRepo {
  const insertEvent = db.prepare(
    "INSERT INTO history (check_seq, at, kind, status, region, meta) VALUES (?, ?, 'event', ?, ?, ?)",
  );
  const forCheck = db.prepare('SELECT * FROM history WHERE check_seq = ? ORDER BY at DESC, id DESC LIMIT ?');
  const deleteForCheck = db.prepare('DELETE FROM history WHERE check_seq = ?');
  return {
    insertEvent: (e) => void insertEvent.run(e.checkSeq, e.at, e.status, e.region, JSON.stringify(e.meta)),
    forCheck: (seq, limit) => (forCheck.all(seq, limit) as HistoryRowDb[]).map(rowToHistory),
    deleteForCheck: (seq) => void deleteForCheck.run(seq),
  };
}
