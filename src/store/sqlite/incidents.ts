import type { Synchronous } from '../synchronous.js';
import type { Db } from '../db.js';
import type { Incident, IncidentImpact, IncidentRepo, IncidentStatus, IncidentUpdate } from '../incidents.js';

interface IncidentRowDb {
  id: string;
  page_id: string;
  title: string;
  impact: string;
  status: string;
  auto_check_id: string | null;
  created_at: number;
  updated_at: number;
  resolved_at: number | null;
}

interface UpdateRowDb {
  id: string;
  status: string;
  message: string;
  at: number;
}

export function sqliteIncidents(db: Db): Synchronous<IncidentRepo> {
  const insertRow = db.prepare(
    `INSERT INTO status_page_incidents (id, page_id, title, impact, status, auto_check_id, created_at, updated_at, resolved_at)
     VALUES (@id, @pageId, @title, @impact, @status, @autoCheckId, @createdAt, @updatedAt, @resolvedAt)`,
  );
  const updateRow = db.prepare(
    `UPDATE status_page_incidents SET title = @title, impact = @impact, status = @status, auto_check_id = @autoCheckId,
     updated_at = @updatedAt, resolved_at = @resolvedAt WHERE id = @id`,
  );
  const deleteRow = db.prepare('DELETE FROM status_page_incidents WHERE id = ?');
  const byId = db.prepare<[string], IncidentRowDb>('SELECT * FROM status_page_incidents WHERE id = ?');
  const list = db.prepare<[string, number, number], IncidentRowDb>(
    'SELECT * FROM status_page_incidents WHERE page_id = ? ORDER BY created_at DESC, seq DESC LIMIT ? OFFSET ?',
  );
  const count = db.prepare<[string], number>('SELECT count(*) FROM status_page_incidents WHERE page_id = ?').pluck();
  const shown = db.prepare<[string, number], IncidentRowDb>(
    `SELECT * FROM status_page_incidents WHERE page_id = ? AND (resolved_at IS NULL OR resolved_at >= ?)
     ORDER BY created_at DESC, seq DESC`,
  );
  const openAuto = db.prepare<[string, string], IncidentRowDb>(
    'SELECT * FROM status_page_incidents WHERE page_id = ? AND auto_check_id = ? AND resolved_at IS NULL ORDER BY seq DESC LIMIT 1',
  );
  const checksOf = db.prepare<[string], string>('SELECT check_id FROM status_page_incident_checks WHERE incident_id = ? ORDER BY position').pluck();
  const clearChecks = db.prepare('DELETE FROM status_page_incident_checks WHERE incident_id = ?');
  // A check deleted meanwhile is skipped rather than failing the write.
  const addCheck = db.prepare(
    'INSERT INTO status_page_incident_checks (incident_id, check_id, position) SELECT ?, id, ? FROM checks WHERE id = ?',
  );
  const updatesOf = db.prepare<[string], UpdateRowDb>('SELECT id, status, message, at FROM status_page_incident_updates WHERE incident_id = ? ORDER BY seq');
  const addUpdate = db.prepare('INSERT INTO status_page_incident_updates (id, incident_id, status, message, at) VALUES (?, ?, ?, ?, ?)');

  const toIncident = (r: IncidentRowDb): Incident => ({
    id: r.id,
    pageId: r.page_id,
    title: r.title,
    impact: r.impact as IncidentImpact,
    status: r.status as IncidentStatus,
    checkIds: checksOf.all(r.id),
    updates: updatesOf.all(r.id).map((u) => ({ id: u.id, status: u.status as IncidentStatus, message: u.message, at: u.at })),
    autoCheckId: r.auto_check_id,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    resolvedAt: r.resolved_at,
  });
  const setChecks = (incident: Incident) => {
    clearChecks.run(incident.id);
    incident.checkIds.forEach((checkId, position) => addCheck.run(incident.id, position, checkId));
  };
  const append = (incidentId: string, u: IncidentUpdate) => addUpdate.run(u.id, incidentId, u.status, u.message, u.at);

  return {
    insert: db.transaction((incident: Incident) => {
      insertRow.run(incident);
      setChecks(incident);
      for (const u of incident.updates) append(incident.id, u);
    }),
    save: db.transaction((incident: Incident, added: IncidentUpdate | null) => {
      updateRow.run(incident);
      setChecks(incident);
      if (added) append(incident.id, added);
    }),
    delete: (id) => void deleteRow.run(id),
    byId: (id) => {
      const row = byId.get(id);
      return row === undefined ? null : toIncident(row);
    },
    list: (pageId, page) => list.all(pageId, page.limit, page.offset).map(toIncident),
    count: (pageId) => count.get(pageId) ?? 0,
    shown: (pageId, since) => shown.all(pageId, since).map(toIncident),
    openAuto: (pageId, checkId) => {
      const row = openAuto.get(pageId, checkId);
      return row === undefined ? null : toIncident(row);
    },
  };
}
