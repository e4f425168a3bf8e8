import type { Migration } from './migrations.js';

/** Issue 29: subscribers of status pages (email after double opt-in, webhooks). */
export const SUBSCRIBERS_MIGRATION: Migration = {
  version: 12,
  name: 'status page subscribers',
  sql: `
    CREATE TABLE status_page_subscribers (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      id TEXT NOT NULL UNIQUE,
      page_id TEXT NOT NULL REFERENCES status_pages(id) ON DELETE CASCADE,
      kind TEXT NOT NULL,
      address TEXT NOT NULL,
      secret TEXT,
      token TEXT NOT NULL UNIQUE,
      confirmed_at INTEGER,
      created_at INTEGER NOT NULL,
      UNIQUE (page_id, kind, address)
    );
  `,
};
