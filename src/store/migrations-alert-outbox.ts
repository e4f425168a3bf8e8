import type { Migration } from './migrations.js';

/**
 * Issue 26: alert events written with the state change that raised them, until routed (see
 * store/alert-outbox.ts; PostgreSQL version 9).
 */
export const ALERT_OUTBOX_MIGRATION: Migration = {
  version: 22,
  name: 'alert outbox',
  sql: `
    CREATE TABLE alert_outbox (
      id TEXT PRIMARY KEY,
      check_id TEXT NOT NULL,
      account_id TEXT NOT NULL,
      event TEXT NOT NULL,
      created_at INTEGER NOT NULL
    );
    CREATE INDEX alert_outbox_created ON alert_outbox(created_at);
  `,
};
