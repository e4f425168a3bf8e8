import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import type { Db } from '../db.js';
import { DB_FILE } from '../db.js';
import { dayKey } from '../../domain/cover.js';
import { hourKey, type RollupSample } from '../../domain/rollup.js';
import { StartupError } from '../../util/startup-error.js';
import type { PgDb } from './db.js';
import { columnsOf } from './history.js';
import { ensurePartitions } from './partitions.js';
import { pgRollups } from './rollups.js';

/**
 * `vigil store migrate --to postgres://…` (issue 26 item 4): copies a SQLite database, table by
 * table in foreign-key order, into an empty PostgreSQL database migrated to Vigil's schema. Each
 * batch and the table's progress row (`migrate_progress`: rows copied, the last key) commit in
 * one PostgreSQL transaction, so an interrupted copy resumes after the last batch that
 * committed. A target holding Vigil data that was not copied from this source is refused.
 */

/**
 * Tables of the target that are not copied: the target's own bookkeeping, and the state of the
 * centrals that will run on it (their leases, their rows, pings waiting for an owner), which
 * is theirs, not the SQLite server's.
 */
const OWN = new Set(['vigil_schema', 'migrate_progress', 'counters', 'cluster_instances', 'cluster_slots', 'ping_inbox']);
const MINUTE_MARK = 'rollups.openMinuteFrom';

export interface CopyReport {
  source: string;
  tables: Array<{ table: string; rows: number }>;
  resumed: boolean;
}

export class MigrateRefused extends StartupError {}

interface TargetColumn {
  name: string;
  type: string;
}

export async function copySqliteToPostgres(
  source: Db, dataDir: string, target: PgDb, options: { batch?: number; progress?: (line: string) => void } = {},
): Promise<CopyReport> {
  const batch = options.batch ?? 5000;
  const progress = options.progress ?? (() => undefined);
  const sourceId = dataDir === ':memory:' ? ':memory:' : realpathSync(join(dataDir, DB_FILE));
  await target.migrate();

  const tables = await copyOrder(target);
  const sourceTables = new Set((source.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[]));
  const started = await target.query<{ table_name: string; source: string; copied: number; last_key: string | null; done: boolean }>(
    'SELECT * FROM migrate_progress',
  );
  const foreign = started.find((p) => p.source !== sourceId);
  if (foreign) throw new MigrateRefused(`the target database holds a copy from another source (${foreign.source}): migrate into an empty database`);
  if (started.length === 0) {
    for (const table of tables) {
      const row = await target.one(`SELECT 1 FROM ${table} LIMIT 1`);
      if (row) throw new MigrateRefused(`the target database already holds Vigil data (table ${table} has rows): migrate into an empty database`);
    }
  }
  await partitionsFor(source, target);
  const byTable = new Map(started.map((p) => [p.table_name, p]));
  const report: CopyReport = { source: sourceId, tables: [], resumed: started.length > 0 };

  for (const table of tables) {
    if (!sourceTables.has(table)) continue;
    const state = byTable.get(table);
    if (state?.done) {
      report.tables.push({ table, rows: state.copied });
      continue;
    }
    const rows = await copyTable(source, target, table, sourceId, batch, state ?? null, progress);
    report.tables.push({ table, rows });
  }
  await afterCopy(source, target);
  progress('copy complete');
  return report;
}

/** Every Vigil table of the target (not partitions), parents before the tables that refer to them. */
async function copyOrder(target: PgDb): Promise<string[]> {
  const tables = (await target.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') AND NOT c.relispartition ORDER BY c.relname`,
  )).map((r) => r.name).filter((t) => !OWN.has(t));
  const edges = await target.query<{ child: string; parent: string }>(
    `SELECT c.relname AS child, p.relname AS parent FROM pg_constraint k
     JOIN pg_class c ON c.oid = k.conrelid JOIN pg_class p ON p.oid = k.confrelid WHERE k.contype = 'f'`,
  );
  const out: string[] = [];
  const visiting = new Set<string>();
  const visit = (t: string) => {
    if (out.includes(t) || visiting.has(t)) return;
    visiting.add(t);
    for (const e of edges) if (e.child === t && e.parent !== t) visit(e.parent);
    out.push(t);
  };
  for (const t of tables) visit(t);
  return out.filter((t) => tables.includes(t));
}

async function copyTable(
  source: Db, target: PgDb, table: string, sourceId: string, batch: number,
  state: { copied: number; last_key: string | null } | null, progress: (line: string) => void,
): Promise<number> {
  const targetColumns = await target.query<TargetColumn & Record<string, unknown>>(
    `SELECT column_name AS name, data_type AS type FROM information_schema.columns
     WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position`,
    [table],
  );
  const info = source.prepare(`PRAGMA table_info(${table})`).all() as Array<{ name: string; pk: number }>;
  const sourceNames = new Set(info.map((c) => c.name));
  const withoutRowid = (source.prepare("SELECT sql FROM sqlite_master WHERE name = ?").pluck().get(table) as string).includes('WITHOUT ROWID');
  // The key that orders the copy and records where it got: rowid, or the primary key.
  const key = withoutRowid ? info.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk).map((c) => c.name) : ['rowid'];
  // A PostgreSQL `id` SQLite keeps as its rowid (state_changes).
  const columns = targetColumns.filter((c) => sourceNames.has(c.name) || (c.name === 'id' && !withoutRowid));
  const select = columns.map((c) => (sourceNames.has(c.name) ? `"${c.name}"` : `rowid AS "${c.name}"`));
  const keyList = key.map((k) => (k === 'rowid' ? 'rowid' : `"${k}"`)).join(', ');
  const read = source.prepare(
    `SELECT ${select.join(', ')}, ${key.map((k, i) => `${k === 'rowid' ? 'rowid' : `"${k}"`} AS __k${i}`).join(', ')} FROM ${table}
     WHERE (${keyList}) > (${key.map(() => '?').join(', ')}) ORDER BY ${keyList} LIMIT ?`,
  );
  const first = source.prepare(`SELECT ${select.join(', ')}, ${key.map((k, i) => `${k === 'rowid' ? 'rowid' : `"${k}"`} AS __k${i}`).join(', ')} FROM ${table} ORDER BY ${keyList} LIMIT ?`);
  const total = source.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number;
  const insert = `INSERT INTO ${table} (${columns.map((c) => `"${c.name}"`).join(', ')})
    SELECT * FROM unnest(${columns.map((c, i) => `$${i + 1}::${arrayType(c.type)}[]`).join(', ')})`;
  let copied = state?.copied ?? 0;
  let lastKey: unknown[] | null = state?.last_key ? decodeKey(state.last_key) : null;
  let lastPrinted = 0;
  for (;;) {
    const rows = (lastKey === null ? first.all(batch) : read.all(...lastKey, batch)) as Array<Record<string, unknown>>;
    if (rows.length === 0) break;
    const values = rows.map((r) => columns.map((c) => convert(r[c.name], c.type)));
    const next = key.map((_, i) => rows.at(-1)![`__k${i}`]);
    copied += rows.length;
    await target.transaction(async () => {
      await target.run(insert, columnsOf(values, columns.length));
      await target.run(
        `INSERT INTO migrate_progress (table_name, source, copied, last_key, done) VALUES ($1, $2, $3, $4, false)
         ON CONFLICT (table_name) DO UPDATE SET copied = excluded.copied, last_key = excluded.last_key`,
        [table, sourceId, copied, encodeKey(next)],
      );
    });
    lastKey = next;
    if (Date.now() - lastPrinted >= 1000 || rows.length < batch) {
      lastPrinted = Date.now();
      progress(`${table}: ${copied}/${total} rows`);
    }
    if (rows.length < batch) break;
  }
  await target.run(
    `INSERT INTO migrate_progress (table_name, source, copied, last_key, done) VALUES ($1, $2, $3, NULL, true)
     ON CONFLICT (table_name) DO UPDATE SET copied = excluded.copied, done = true`,
    [table, sourceId, copied],
  );
  if (copied === 0) progress(`${table}: 0 rows`);
  return copied;
}

/** The array type unnest binds a column's values as. */
function arrayType(type: string): string {
  switch (type) {
    case 'boolean': return 'bool';
    case 'bytea': return 'bytea';
    case 'bigint': return 'bigint';
    case 'integer': return 'int';
    case 'double precision': return 'float8';
    default: return 'text';
  }
}

function convert(v: unknown, type: string): unknown {
  if (v === null || v === undefined) return null;
  if (type === 'boolean') return v === 1 || v === true || v === 1n;
  if (typeof v === 'bigint') return Number(v);
  return v;
}

/**
 * Sequences continue after the copied numbers; rollup minutes a SQLite server had not written
 * (it did not stop cleanly) are rebuilt from raw history; the partitions of the copied rows' days
 * are made (their rows leave the DEFAULT partitions).
 */
async function afterCopy(source: Db, target: PgDb): Promise<void> {
  const serials = await target.query<{ table_name: string; column_name: string; seq: string }>(
    `SELECT table_name, column_name, pg_get_serial_sequence(quote_ident(table_name), column_name) AS seq FROM information_schema.columns
     WHERE table_schema = current_schema() AND column_default LIKE 'nextval(%'`,
  );
  for (const s of serials) {
    const seq = s.seq ?? (s.table_name === 'history' ? 'history_id_seq' : null);
    if (!seq) continue;
    await target.run(`SELECT setval('${seq}', greatest((SELECT coalesce(max(${s.column_name}), 0) FROM ${s.table_name}), 1))`);
  }
  const open = await target.one<{ value: string }>('SELECT value FROM meta WHERE key = $1', [MINUTE_MARK]);
  if (open) {
    const from = Number(open.value);
    await target.transaction(async () => {
      await target.run('DELETE FROM rollup_minute WHERE at >= $1', [from]);
      const marks = await target.query<{ key: string; value: string }>("SELECT key, value FROM meta WHERE key IN ('rollups.openHourFrom', 'rollups.openDayFrom')");
      for (const m of marks) {
        const lowered = m.key === 'rollups.openHourFrom' ? hourKey(from) : dayKey(from);
        if (Number(m.value) > lowered) {
          await target.run(`DELETE FROM ${m.key === 'rollups.openHourFrom' ? 'rollup_hour' : 'rollup_day'} WHERE at >= $1`, [lowered]);
          await target.run('UPDATE meta SET value = $1 WHERE key = $2', [String(lowered), m.key]);
        }
      }
      const raw = source
        .prepare(
          `SELECT check_seq, at, status, response_time, total, dns, connect, tls, ttfb FROM history
           WHERE at >= ? AND kind != 'event' AND status IN ('up', 'down') ORDER BY at, id`,
        )
        .all(from) as Array<Record<string, number | string | null>>;
      const samples = raw.map((r): [number, number, RollupSample] => {
        const total = r.total as number | null;
        const timing = total === null ? null : { dns: (r.dns as number) ?? 0, connect: (r.connect as number) ?? 0, tls: (r.tls as number) ?? 0, ttfb: (r.ttfb as number) ?? 0, total };
        return [r.check_seq as number, r.at as number, { ok: r.status === 'up', responseTime: r.response_time as number | null, timing }];
      });
      await pgRollups(target, () => undefined).write(samples, 0);
      await target.run('DELETE FROM meta WHERE key = $1', [MINUTE_MARK]);
    });
  }
}

/** The day partitions from the source's oldest raw row or minute rollup to now: rows go straight into them. */
async function partitionsFor(source: Db, target: PgDb): Promise<void> {
  const oldest = source.prepare('SELECT min(at) FROM (SELECT min(at) AS at FROM history UNION ALL SELECT min(at) FROM rollup_minute)').pluck().get() as number | null;
  if (oldest !== null) for (let day = dayKey(oldest); day < Date.now(); day += 4 * 86_400_000) await ensurePartitions(target, day);
  await ensurePartitions(target, Date.now());
}

/** Keys as JSON, blobs (a hash key) kept as blobs. */
const encodeKey = (key: unknown[]) => JSON.stringify(key.map((k) => (Buffer.isBuffer(k) ? { b64: k.toString('base64') } : k)));
const decodeKey = (text: string) =>
  (JSON.parse(text) as unknown[]).map((k) => (k !== null && typeof k === 'object' && 'b64' in k ? Buffer.from((k as { b64: string }).b64, 'base64') : k));
