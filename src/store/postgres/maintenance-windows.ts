import type { MaintenanceWindow } from '../../domain/maintenance-windows.js';
import type { MaintenanceWindowRepo } from '../maintenance-windows.js';
import type { PgDb, Row } from './db.js';
import type { Async } from './types.js';
import { rowToWindow, type MaintenanceWindowRowDb } from '../rows/maintenance-windows.js';

const toWindow = (r: Row): MaintenanceWindow => rowToWindow(r as unknown as MaintenanceWindowRowDb);

/** Columns a window's fields write, after id and account (the SQLite table's names). */
const values = (w: MaintenanceWindow) => [
  w.title, w.description, JSON.stringify(w.checkIds), JSON.stringify(w.folders), JSON.stringify(w.tags), w.allChecks,
  w.startsAt, w.endsAt, w.schedule, w.durationMinutes, w.timezone, w.updatedAt,
];
const COLUMNS = ['title', 'description', 'check_ids', 'folders', 'tags', 'all_checks', 'starts_at', 'ends_at', 'schedule', 'duration_minutes', 'timezone', 'updated_at'];

export function pgMaintenanceWindows(db: PgDb): Async<MaintenanceWindowRepo> {
  const insertSql = `INSERT INTO maintenance_windows (id, account_id, created_at, ${COLUMNS.join(', ')})
    VALUES ($1, $2, $3, ${COLUMNS.map((_, i) => `$${i + 4}`).join(', ')})`;
  const updateSql = `UPDATE maintenance_windows SET ${COLUMNS.map((c, i) => `${c} = $${i + 2}`).join(', ')} WHERE id = $1`;
  return {
    insert: async (w) => void (await db.run(insertSql, [w.id, w.accountId, w.createdAt, ...values(w)])),
    update: async (w) => void (await db.run(updateSql, [w.id, ...values(w)])),
    delete: async (id) => void (await db.run('DELETE FROM maintenance_windows WHERE id = $1', [id])),
    byId: async (id) => {
      const r = await db.one('SELECT * FROM maintenance_windows WHERE id = $1', [id]);
      return r ? toWindow(r) : null;
    },
    listForAccount: async (accountId) => (await db.query('SELECT * FROM maintenance_windows WHERE account_id = $1 ORDER BY created_at, id', [accountId])).map(toWindow),
    all: async () => (await db.query('SELECT * FROM maintenance_windows ORDER BY created_at, id')).map(toWindow),
  };
}
