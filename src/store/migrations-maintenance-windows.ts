import type { Migration } from './migrations.js';

/**
 * Issue 27: scheduled maintenance windows, and on each check whether one is in force for it
 * now (written at the window's start and end, so every reader sees it as it sees manual
 * maintenance).
 */
export const MAINTENANCE_WINDOWS_MIGRATION: Migration = {
  version: 15,
  name: 'maintenance windows',
  sql: `
    CREATE TABLE maintenance_windows (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      title TEXT NOT NULL,
      description TEXT,
      check_ids TEXT NOT NULL,
      folders TEXT NOT NULL,
      tags TEXT NOT NULL,
      all_checks INTEGER NOT NULL,
      starts_at INTEGER,
      ends_at INTEGER,
      schedule TEXT,
      duration_minutes INTEGER,
      timezone TEXT,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL
    );
    CREATE INDEX maintenance_windows_account ON maintenance_windows(account_id, created_at);
    ALTER TABLE checks ADD COLUMN window_maintenance INTEGER NOT NULL DEFAULT 0;
    CREATE INDEX checks_window_maintenance ON checks(id) WHERE window_maintenance = 1;
  `,
};
