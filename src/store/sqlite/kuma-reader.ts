import { createHash } from 'node:crypto';
import Database from 'better-sqlite3';
import { NotKumaDatabase, type KumaBeat, type KumaMonitorRow, type KumaSnapshot } from '../kuma-source.js';

const REQUIRED_TABLES = ['monitor', 'notification', 'monitor_notification', 'heartbeat', 'user'];

/**
 * Reads a Kuma SQLite file without ever changing it (opened read-only; the fixtures are in
 * journal mode DELETE, a live WAL file needs Kuma stopped or its -wal beside it).
 */
export function readKumaDatabase(file: string, options: { heartbeats: boolean } = { heartbeats: false }): KumaSnapshot {
  let db: Database.Database;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
  } catch (err) {
    throw new NotKumaDatabase(`${file}: cannot open (${(err as Error).message})`);
  }
  try {
    let tables: Set<string>;
    try {
      const check = db.pragma('quick_check', { simple: true });
      if (check !== 'ok') throw new Error(String(check));
      tables = new Set((db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[]));
    } catch (err) {
      throw new NotKumaDatabase(`${file} is not a readable SQLite database (${(err as Error).message.split('\n')[0]})`);
    }
    const missing = REQUIRED_TABLES.filter((t) => !tables.has(t));
    if (missing.length > 0) throw new NotKumaDatabase(`${file} is not an Uptime Kuma database (no ${missing.join(', ')} table)`);
    return snapshot(db, tables, options.heartbeats);
  } finally {
    db.close();
  }
}

function snapshot(db: Database.Database, tables: Set<string>, withBeats: boolean): KumaSnapshot {
  const all = <T>(sql: string): T[] => db.prepare(sql).all() as T[];
  const grouped = <V>(rows: { key: number; value: V }[]) => {
    const map = new Map<number, V[]>();
    for (const r of rows) map.set(r.key, [...(map.get(r.key) ?? []), r.value]);
    return map;
  };
  const setting = (key: string) => (tables.has('setting') ? (db.prepare('SELECT value FROM setting WHERE key = ?').pluck().get(key) as string | undefined) : undefined);
  const secret = setting('jwtSecret') ?? JSON.stringify(all('SELECT id, name, type FROM monitor ORDER BY id'));
  const version = tables.has('stat_minutely') ? '2.x' : '1.x';

  const notifications = all<{ id: number; name: string; is_default: number; active: number; config: string | null }>(
    'SELECT id, name, is_default, active, config FROM notification ORDER BY id',
  ).map((n) => ({ id: n.id, name: n.name, isDefault: n.is_default === 1, active: n.active === 1, config: parseObject(n.config) }));

  const tagRows = tables.has('monitor_tag')
    ? all<{ key: number; name: string; value: string | null }>('SELECT mt.monitor_id AS key, t.name, mt.value FROM monitor_tag mt JOIN tag t ON t.id = mt.tag_id ORDER BY mt.id')
    : [];

  const maintenance = tables.has('maintenance')
    ? all<{ id: number; title: string; strategy: string; active: number; start_date: string | null; end_date: string | null } & Record<string, unknown>>(
        // Every column: the recurring ones (times, weekdays, cron, duration, timezone) came in later Kuma versions.
        'SELECT * FROM maintenance ORDER BY id',
      )
    : [];
  const maintenanceMonitors = tables.has('monitor_maintenance')
    ? grouped(all<{ key: number; value: number }>('SELECT maintenance_id AS key, monitor_id AS value FROM monitor_maintenance ORDER BY id'))
    : new Map<number, number[]>();

  const pages = tables.has('status_page')
    ? all<Record<string, unknown> & { id: number; slug: string; title: string; description: string | null }>('SELECT * FROM status_page ORDER BY id')
    : [];
  const pageDomains = tables.has('status_page_cname')
    ? grouped(all<{ key: number; value: string }>('SELECT status_page_id AS key, domain AS value FROM status_page_cname ORDER BY id'))
    : new Map<number, string[]>();
  const pinnedIncidents = tables.has('incident')
    ? grouped(all<{ key: number; value: string }>('SELECT status_page_id AS key, title AS value FROM incident WHERE pin = 1 ORDER BY id'))
    : new Map<number, string[]>();
  const pageGroups = tables.has('group')
    ? all<{ id: number; name: string; page: number }>('SELECT id, name, status_page_id AS page FROM "group" WHERE status_page_id IS NOT NULL ORDER BY weight, id')
    : [];
  const groupMonitors = tables.has('monitor_group')
    ? grouped(all<{ key: number; value: number }>('SELECT group_id AS key, monitor_id AS value FROM monitor_group ORDER BY weight, id'))
    : new Map<number, number[]>();

  const beats = withBeats
    ? grouped(all<{ key: number; status: number; time: string; msg: string | null; ping: number | null }>('SELECT monitor_id AS key, status, time, msg, ping FROM heartbeat ORDER BY time, id')
        .map((b) => ({ key: b.key, value: { status: b.status, at: Date.parse(`${b.time.replace(' ', 'T')}Z`), msg: b.msg, ping: b.ping } satisfies KumaBeat })))
    : new Map<number, KumaBeat[]>();

  return {
    heartbeats: beats,
    sourceId: createHash('sha256').update(secret).digest('hex').slice(0, 16),
    version,
    monitors: all<KumaMonitorRow>('SELECT * FROM monitor ORDER BY id'),
    notifications,
    monitorNotifications: grouped(all<{ key: number; value: number }>('SELECT monitor_id AS key, notification_id AS value FROM monitor_notification ORDER BY id')),
    monitorTags: grouped(tagRows.map((t) => ({ key: t.key, value: { name: t.name, value: t.value ?? '' } }))),
    maintenance: maintenance.map((m) => ({
      id: m.id, title: m.title, strategy: m.strategy, active: m.active === 1,
      description: text(m.description),
      startDate: m.start_date, endDate: m.end_date,
      startTime: text(m.start_time), endTime: text(m.end_time),
      weekdays: jsonList(m.weekdays).map(Number).filter(Number.isInteger),
      daysOfMonth: jsonList(m.days_of_month).map((d) => (typeof d === 'number' ? d : String(d))),
      intervalDay: typeof m.interval_day === 'number' ? m.interval_day : null,
      cron: text(m.cron),
      duration: typeof m.duration === 'number' ? m.duration : null,
      timezone: text(m.timezone),
      monitorIds: maintenanceMonitors.get(m.id) ?? [],
    })),
    statusPages: pages.map((p) => {
      const groups = pageGroups.filter((g) => g.page === p.id);
      return {
        id: p.id, slug: p.slug, title: p.title, description: p.description,
        settings: p, domains: pageDomains.get(p.id) ?? [], pinnedIncidents: pinnedIncidents.get(p.id) ?? [],
        groups: groups.map((g) => g.name),
        monitorIds: groups.flatMap((g) => groupMonitors.get(g.id) ?? []),
      };
    }),
  };
}

function parseObject(text: string | null): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(text ?? '{}');
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v : null);

/** A JSON array column ('[0, 6]'), or [] when it is absent or not one. */
function jsonList(v: unknown): unknown[] {
  if (typeof v !== 'string') return [];
  try {
    const parsed: unknown = JSON.parse(v);
    return Array.isArray(parsed) ? parsed : [];
  } catch {
    return [];
  }
}
