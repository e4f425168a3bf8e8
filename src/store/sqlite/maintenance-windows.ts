import type { Db } from '../db.js';
import type { MaintenanceWindow } from '../../domain/maintenance-windows.js';
import type { MaintenanceWindowRepo } from '../maintenance-windows.js';
import type { Synchronous } from '../synchronous.js';
import { fromBool } from '../rows/values.js';
import { rowToWindow as toWindow, type MaintenanceWindowRowDb as Row } from '../rows/maintenance-windows.js';

const params = (w: MaintenanceWindow) => ({
  id: w.id, accountId: w.accountId, title: w.title, description: w.description, checkIds: JSON.stringify(w.checkIds),
  folders: JSON.stringify(w.folders), tags: JSON.stringify(w.tags), allChecks: fromBool(w.allChecks), startsAt: w.startsAt,
  endsAt: w.endsAt, schedule: w.schedule, durationMinutes: w.durationMinutes, timezone: w.timezone, createdAt: w.createdAt, updatedAt: w.updatedAt,
});

export function sqliteMaintenanceWindows(db: Db): Synchronous<MaintenanceWindowRepo> {
  const insert = db.prepare(
    `INSERT INTO maintenance_windows (id, account_id, title, description, check_ids, folders, tags, all_checks, starts_at, ends_at,
       schedule, duration_minutes, timezone, created_at, updated_at)
     VALUES (@id, @accountId, @title, @description, @checkIds, @folders, @tags, @allChecks, @startsAt, @endsAt,
       @schedule, @durationMinutes, @timezone, @createdAt, @updatedAt)`,
  );
  const update = db.prepare(
    `UPDATE maintenance_windows SET title = @title, description = @description, check_ids = @checkIds, folders = @folders, tags = @tags,
       all_checks = @allChecks, starts_at = @startsAt, ends_at = @endsAt, schedule = @schedule, duration_minutes = @durationMinutes,
       timezone = @timezone, updated_at = @updatedAt WHERE id = @id`,
  );
  const del = db.prepare('DELETE FROM maintenance_windows WHERE id = ?');
  const byId = db.prepare<[string], Row>('SELECT * FROM maintenance_windows WHERE id = ?');
  const forAccount = db.prepare<[string], Row>('SELECT * FROM maintenance_windows WHERE account_id = ? ORDER BY created_at, id');
  const all = db.prepare<[], Row>('SELECT * FROM maintenance_windows ORDER BY created_at, id');
  return {
    insert: (w) => void insert.run(params(w)),
    update: (w) => void update.run(params(w)),
    delete: (id) => void del.run(id),
    byId: (id) => {
      const r = byId.get(id);
      return r === undefined ? null : toWindow(r);
    },
    listForAccount: (accountId) => forAccount.all(accountId).map(toWindow),
    all: () => all.all().map(toWindow),
  };
}
