import type { Migration } from './migrations.js';

/** Issue 29: a status page's own look (logo, accent colour, footer, favicon, the "Powered by" line). */
export const PAGE_LOOK_MIGRATION: Migration = {
  version: 13,
  name: 'status page look',
  sql: `
    ALTER TABLE status_pages ADD COLUMN logo_url TEXT;
    ALTER TABLE status_pages ADD COLUMN accent_color TEXT;
    ALTER TABLE status_pages ADD COLUMN footer_text TEXT;
    ALTER TABLE status_pages ADD COLUMN favicon TEXT;
    ALTER TABLE status_pages ADD COLUMN hide_powered_by INTEGER NOT NULL DEFAULT 0;
  `,
};
