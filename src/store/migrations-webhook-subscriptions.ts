import type { Migration } from './migrations.js';

/**
 * Issue 34: a page takes webhook subscribers only when its owner turns it on (off for every page
 * that exists, whatever subscribers it has), and pending subscribers are found by age to expire
 * (PostgreSQL version 10).
 */
export const WEBHOOK_SUBSCRIPTIONS_MIGRATION: Migration = {
  version: 23,
  name: 'status page webhook subscriptions switch',
  sql: `
    ALTER TABLE status_pages ADD COLUMN webhook_subscriptions INTEGER NOT NULL DEFAULT 0;
    CREATE INDEX status_page_subscribers_pending ON status_page_subscribers(created_at) WHERE confirmed_at IS NULL;
  `,
};
