import type { HistoryRow } from '../../domain/records.js';
import type { HistoryQuery, HistoryRepo, LoggedStatus, RecentResult, StateChangeRepo } from '../store.js';
import { containsPattern, eventValues, HISTORY_COLUMNS, resultValues, rowToHistory, type HistoryRowDb } from '../rows/history.js';
import type { PgDb, Row } from './db.js';
import type { Async } from './types.js';

function where(q: HistoryQuery): { sql: string; params: unknown[] } {
  const params: unknown[] = [q.checkSeq];
  const parts = ['check_seq = $1'];
  const add = (sql: string, value: unknown) => {
    params.push(value);
    parts.push(sql.replace('?', `$${params.length}`));
  };
  if (q.from !== null) add('at >= ?', q.from);
  if (q.to !== null) add('at <= ?', q.to);
  if (q.status === 'up') parts.push("kind <> 'event' AND status = 'up'");
  else if (q.status === 'down') parts.push("kind <> 'event' AND status = 'down'");
  else if (q.status === 'error') parts.push("kind <> 'event' AND status = 'down' AND status_code IS NULL");
  if (q.q !== null) {
    params.push(containsPattern(q.q));
    parts.push(`(error ILIKE $${params.length} OR snippet ILIKE $${params.length})`);
  }
  return { sql: parts.join(' AND '), params };
}

/** HISTORY_COLUMNS' types, for unnest. */
export const HISTORY_TYPES = ['bigint', 'bigint', 'text', 'text', 'integer', 'float8', 'float8', 'float8', 'float8', 'float8', 'float8', 'text', 'text', 'text', 'text'];

/** One INSERT of many history rows: each column as an array, unnested. */
export const INSERT_HISTORY = `INSERT INTO history (${HISTORY_COLUMNS.join(', ')})
  SELECT * FROM unnest(${HISTORY_TYPES.map((t, i) => `$${i + 1}::${t}[]`).join(', ')})`;

/** Rows as column arrays, for unnest. */
export function columnsOf(rows: readonly unknown[][], width: number): unknown[][] {
  const columns: unknown[][] = Array.from({ length: width }, () => []);
  for (const row of rows) for (let i = 0; i < width; i++) columns[i]!.push(row[i]);
  return columns;
}

const toHistory = (r: Row): HistoryRow => rowToHistory(r as unknown as HistoryRowDb);

export function pgHistory(db: PgDb): Async<HistoryRepo> {
  const insertOne = `INSERT INTO history (${HISTORY_COLUMNS.join(', ')}) VALUES (${HISTORY_COLUMNS.map((_, i) => `$${i + 1}`).join(', ')})`;
  return {
    insertEvent: async (e) => void (await db.run(insertOne, eventValues(e), 'vigil_history_insert')),
    insertResult: async (r) => void (await db.run(insertOne, resultValues(r), 'vigil_history_insert')),
    async list(q, page) {
      const w = where(q);
      const params = [...w.params];
      let before = '';
      if (page.before !== null) {
        params.push(page.before[0], page.before[1]);
        before = ` AND (at < $${params.length - 1} OR (at = $${params.length - 1} AND id < $${params.length}))`;
      }
      params.push(page.limit, page.offset);
      const rows = await db.query(
        `SELECT * FROM history WHERE ${w.sql}${before} ORDER BY at DESC, id DESC LIMIT $${params.length - 1} OFFSET $${params.length}`,
        params,
      );
      return rows.map(toHistory);
    },
    async count(q) {
      const w = where(q);
      return (await db.one<{ n: number }>(`SELECT count(*) AS n FROM history WHERE ${w.sql}`, w.params))!.n;
    },
    forCheck: async (seq, limit) =>
      (await db.query('SELECT * FROM history WHERE check_seq = $1 ORDER BY at DESC, id DESC LIMIT $2', [seq, limit], 'vigil_history_for_check')).map(toHistory),
    recentResults: async (seq, limit) =>
      db.query<RecentResult & Row>(
        `SELECT at, status, response_time AS "responseTime" FROM history WHERE check_seq = $1 AND status IN ('up', 'down')
         ORDER BY at DESC, id DESC LIMIT $2`,
        [seq, limit],
        'vigil_recent_results',
      ),
    deleteForCheck: async (seq) => void (await db.run('DELETE FROM history WHERE check_seq = $1', [seq])),
    lastAt: async (seq, kind) => (await db.one<{ at: number | null }>('SELECT max(at) AS at FROM history WHERE check_seq = $1 AND kind = $2', [seq, kind]))?.at ?? null,
  };
}

export function pgStateChanges(db: PgDb): Async<StateChangeRepo> {
  type R = { at: number; status: LoggedStatus };
  return {
    append: async (seq, at, status) => void (await db.run('INSERT INTO state_changes (check_seq, at, status) VALUES ($1, $2, $3)', [seq, at, status])),
    async between(seq, from, to) {
      const prior = await db.one<R>('SELECT at, status FROM state_changes WHERE check_seq = $1 AND at < $2 ORDER BY at DESC, id DESC LIMIT 1', [seq, from]);
      const rows = await db.query<R>('SELECT at, status FROM state_changes WHERE check_seq = $1 AND at >= $2 AND at <= $3 ORDER BY at, id', [seq, from, to]);
      return prior ? [prior, ...rows] : rows;
    },
    deleteForCheck: async (seq) => void (await db.run('DELETE FROM state_changes WHERE check_seq = $1', [seq])),
  };
}
