import type { Migration } from './migrations.js';

/** Issue 34: the origins that may embed a status page in a frame (JSON array; empty: none). PostgreSQL version 13. */
export const PAGE_EMBEDDING_MIGRATION: Migration = {
  version: 26,
  name: 'status page embedding origins',
  sql: `ALTER TABLE status_pages ADD COLUMN embed_allowed_origins TEXT NOT NULL DEFAULT '[]';`,
};
