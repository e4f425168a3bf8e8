import type { Migration } from './migrations.js';

/** Issue 27: the checks a check depends on (a JSON array of ids of the same account). */
export const DEPENDENCIES_MIGRATION: Migration = {
  version: 20,
  name: 'check dependencies',
  sql: `ALTER TABLE checks ADD COLUMN depends_on TEXT NOT NULL DEFAULT '[]';`,
};
