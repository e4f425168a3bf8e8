import type { Migration } from './migrations.js';

/**
 * Issue 29: incidents of a status page, their affected checks (a check's row goes with the
 * check) and their timeline; and a page's `autoIncidents` switch.
 */
export const INCIDENTS_MIGRATION: Migration = {
  version: 11,
  name: 'status page incidents',
  sql: `
    ALTER TABLE status_pages ADD COLUMN auto_incidents INTEGER NOT NULL DEFAULT 0;

    CREATE TABLE status_page_incidents (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      id TEXT NOT NULL UNIQUE,
      page_id TEXT NOT NULL REFERENCES status_pages(id) ON DELETE CASCADE,
      title TEXT NOT NULL,
      impact TEXT NOT NULL,
      status TEXT NOT NULL,
      auto_check_id TEXT,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL,
      resolved_at INTEGER
    );
    CREATE INDEX status_page_incidents_page ON status_page_incidents(page_id, created_at);
    CREATE INDEX status_page_incidents_auto ON status_page_incidents(page_id, auto_check_id) WHERE auto_check_id IS NOT NULL;

    CREATE TABLE status_page_incident_checks (
      incident_id TEXT NOT NULL REFERENCES status_page_incidents(id) ON DELETE CASCADE,
      check_id TEXT NOT NULL REFERENCES checks(id) ON DELETE CASCADE,
      position INTEGER NOT NULL,
      PRIMARY KEY (incident_id, check_id)
    );
    CREATE INDEX status_page_incident_checks_check ON status_page_incident_checks(check_id);

    CREATE TABLE status_page_incident_updates (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      id TEXT NOT NULL UNIQUE,
      incident_id TEXT NOT NULL REFERENCES status_page_incidents(id) ON DELETE CASCADE,
      status TEXT NOT NULL,
      message TEXT NOT NULL,
      at INTEGER NOT NULL
    );
    CREATE INDEX status_page_incident_updates_incident ON status_page_incident_updates(incident_id, seq);
  `,
};
