import type { Migration } from './migrations.js';

/**
 * Public status pages (issue 15): a page per row, its checks in display order in a second table
 * (a check's row goes with the check, so a deleted check leaves every page at once), and one row
 * `/readyz` rewrites to prove the database takes writes.
 */
export const STATUS_PAGES_MIGRATION: Migration = {
  version: 5,
  name: 'status pages and the readiness row',
  sql: `
    CREATE TABLE status_pages (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      slug TEXT NOT NULL UNIQUE,
      title TEXT NOT NULL,
      description TEXT,
      custom_domain TEXT UNIQUE COLLATE NOCASE,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL
    );
    CREATE INDEX status_pages_account ON status_pages(account_id, created_at);

    CREATE TABLE status_page_checks (
      page_id TEXT NOT NULL REFERENCES status_pages(id) ON DELETE CASCADE,
      check_id TEXT NOT NULL REFERENCES checks(id) ON DELETE CASCADE,
      position INTEGER NOT NULL,
      PRIMARY KEY (page_id, check_id)
    );
    CREATE INDEX status_page_checks_check ON status_page_checks(check_id);

    CREATE TABLE readiness (
      id INTEGER PRIMARY KEY CHECK (id = 1),
      checked_at INTEGER NOT NULL
    );
  `,
};
