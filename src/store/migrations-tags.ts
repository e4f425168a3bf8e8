import type { Migration } from './migrations.js';

/**
 * Issue 27: check tags (a JSON array of `key` or `key:value`, as given), and `tags` beside
 * `checkIds` and `folders` in alert routing.
 */
export const TAGS_MIGRATION: Migration = {
  version: 14,
  name: 'check tags; routing by tag',
  sql: `
    ALTER TABLE checks ADD COLUMN tags TEXT NOT NULL DEFAULT '[]';
    ALTER TABLE email_settings ADD COLUMN tags TEXT NOT NULL DEFAULT '[]';
    ALTER TABLE webhooks ADD COLUMN tags TEXT NOT NULL DEFAULT '[]';
    ALTER TABLE status_pages ADD COLUMN tags TEXT NOT NULL DEFAULT '[]';
  `,
};
