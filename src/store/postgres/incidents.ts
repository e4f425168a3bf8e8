import type { Incident, IncidentImpact, IncidentRepo, IncidentStatus, IncidentUpdate } from '../incidents.js';
import type { PgDb, Row } from './db.js';
import type { Async } from './types.js';

/** Status page incidents (issue 29) over PostgreSQL: the same tables as store/sqlite/incidents.ts. */
export function pgIncidents(db: PgDb): Async<IncidentRepo> {
  // Each incident with its checks and its timeline, in one statement.
  const select = `SELECT i.*,
      coalesce((SELECT array_agg(c.check_id ORDER BY c.position) FROM status_page_incident_checks c WHERE c.incident_id = i.id), '{}') AS check_ids,
      coalesce((SELECT json_agg(json_build_object('id', u.id, 'status', u.status, 'message', u.message, 'at', u.at) ORDER BY u.seq)
                FROM status_page_incident_updates u WHERE u.incident_id = i.id), '[]') AS updates
    FROM status_page_incidents i`;
  const toIncident = (r: Row): Incident => ({
    id: r.id as string,
    pageId: r.page_id as string,
    title: r.title as string,
    impact: r.impact as IncidentImpact,
    status: r.status as IncidentStatus,
    checkIds: r.check_ids as string[],
    updates: (r.updates as Array<IncidentUpdate & { at: number | string }>).map((u) => ({ ...u, at: Number(u.at) })),
    autoCheckId: r.auto_check_id as string | null,
    createdAt: r.created_at as number,
    updatedAt: r.updated_at as number,
    resolvedAt: r.resolved_at as number | null,
  });
  const one = async (sql: string, params: unknown[]) => {
    const r = await db.one(sql, params);
    return r ? toIncident(r) : null;
  };
  // A check deleted meanwhile is skipped rather than failing the write.
  const setChecks = async (incident: Incident) => {
    await db.run('DELETE FROM status_page_incident_checks WHERE incident_id = $1', [incident.id]);
    if (incident.checkIds.length === 0) return;
    await db.run(
      `INSERT INTO status_page_incident_checks (incident_id, check_id, position)
       SELECT $1, c.id, t.ord - 1 FROM unnest($2::text[]) WITH ORDINALITY AS t(id, ord) JOIN checks c ON c.id = t.id`,
      [incident.id, incident.checkIds],
    );
  };
  const append = (incidentId: string, u: IncidentUpdate) =>
    db.run('INSERT INTO status_page_incident_updates (id, incident_id, status, message, at) VALUES ($1, $2, $3, $4, $5)', [u.id, incidentId, u.status, u.message, u.at]);
  return {
    insert: (incident) =>
      db.transaction(async () => {
        await db.run(
          `INSERT INTO status_page_incidents (id, page_id, title, impact, status, auto_check_id, created_at, updated_at, resolved_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
          [incident.id, incident.pageId, incident.title, incident.impact, incident.status, incident.autoCheckId, incident.createdAt, incident.updatedAt, incident.resolvedAt],
        );
        await setChecks(incident);
        for (const u of incident.updates) await append(incident.id, u);
      }),
    save: (incident, added) =>
      db.transaction(async () => {
        await db.run(
          `UPDATE status_page_incidents SET title = $1, impact = $2, status = $3, auto_check_id = $4, updated_at = $5, resolved_at = $6 WHERE id = $7`,
          [incident.title, incident.impact, incident.status, incident.autoCheckId, incident.updatedAt, incident.resolvedAt, incident.id],
        );
        await setChecks(incident);
        if (added) await append(incident.id, added);
      }),
    delete: async (id) => void (await db.run('DELETE FROM status_page_incidents WHERE id = $1', [id])),
    byId: (id) => one(`${select} WHERE i.id = $1`, [id]),
    list: async (pageId, page) =>
      (await db.query(`${select} WHERE i.page_id = $1 ORDER BY i.created_at DESC, i.seq DESC LIMIT $2 OFFSET $3`, [pageId, page.limit, page.offset])).map(toIncident),
    count: async (pageId) => (await db.one<{ n: number }>('SELECT count(*) AS n FROM status_page_incidents WHERE page_id = $1', [pageId]))!.n,
    shown: async (pageId, since) =>
      (await db.query(`${select} WHERE i.page_id = $1 AND (i.resolved_at IS NULL OR i.resolved_at >= $2) ORDER BY i.created_at DESC, i.seq DESC`, [pageId, since])).map(
        toIncident,
      ),
    openAuto: (pageId, checkId) =>
      one(`${select} WHERE i.page_id = $1 AND i.auto_check_id = $2 AND i.resolved_at IS NULL ORDER BY i.seq DESC LIMIT 1`, [pageId, checkId]),
  };
}
