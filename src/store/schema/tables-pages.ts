import { bigint, bool, index, int, json, table, text, time, type Table } from './describe.js';

/** Public status pages, their incidents and subscribers, and the readiness row. */
export const PAGE_TABLES: Table[] = [
  table('status_pages', 5, [
    text('id').primaryKey(),
    text('account_id').notNull().references('accounts'),
    text('slug').notNull().unique(),
    text('title').notNull(),
    text('description'),
    text('custom_domain').caselessUnique('status_pages_domain'),
    time('created_at').notNull(),
    time('updated_at').notNull(),
    bool('auto_incidents').notNull().default(false).since(11),
    text('logo_url').since(13),
    text('accent_color').since(13),
    text('footer_text').since(13),
    text('favicon').since(13),
    bool('hide_powered_by').notNull().default(false).since(13),
    json('tags').notNull().default('[]').since(14),
    // Off for every page that existed, whatever subscribers it has: its owner turns it on.
    bool('webhook_subscriptions').notNull().default(false).since(23),
    // Origins that may embed the page in a frame (empty: none).
    json('embed_allowed_origins').notNull().default('[]').since(26),
  ], { indexes: [index('status_pages_account', ['account_id', 'created_at'])] }),

  // A page's checks in display order; a check's row goes with the check.
  table('status_page_checks', 5, [
    text('page_id').notNull().references('status_pages'),
    text('check_id').notNull().references('checks'),
    int('position').notNull(),
  ], { primaryKey: ['page_id', 'check_id'], indexes: [index('status_page_checks_check', ['check_id'])] }),

  // The one row `/readyz` rewrites to prove the database takes writes.
  table('readiness', 5, [int('id').primaryKey().check('id = 1'), time('checked_at').notNull()]),

  table('status_page_incidents', 11, [
    bigint('seq').primaryKey('autoincrement'),
    text('id').notNull().unique(),
    text('page_id').notNull().references('status_pages'),
    text('title').notNull(),
    text('impact').notNull(),
    text('status').notNull(),
    text('auto_check_id'),
    time('created_at').notNull(),
    time('updated_at').notNull(),
    time('resolved_at'),
  ], {
    indexes: [
      index('status_page_incidents_page', ['page_id', 'created_at']),
      index('status_page_incidents_auto', ['page_id', 'auto_check_id'], { where: () => 'auto_check_id IS NOT NULL' }),
    ],
  }),

  table('status_page_incident_checks', 11, [
    text('incident_id').notNull().references('status_page_incidents'),
    text('check_id').notNull().references('checks'),
    int('position').notNull(),
  ], { primaryKey: ['incident_id', 'check_id'], indexes: [index('status_page_incident_checks_check', ['check_id'])] }),

  table('status_page_incident_updates', 11, [
    bigint('seq').primaryKey('autoincrement'),
    text('id').notNull().unique(),
    text('incident_id').notNull().references('status_page_incidents'),
    text('status').notNull(),
    text('message').notNull(),
    time('at').notNull(),
  ], { indexes: [index('status_page_incident_updates_incident', ['incident_id', 'seq'])] }),

  // Email subscribers after double opt-in, and webhooks.
  table('status_page_subscribers', 12, [
    bigint('seq').primaryKey('autoincrement'),
    text('id').notNull().unique(),
    text('page_id').notNull().references('status_pages'),
    text('kind').notNull(),
    text('address').notNull(),
    text('secret'),
    text('token').notNull().unique(),
    time('confirmed_at'),
    time('created_at').notNull(),
  ], {
    unique: [['page_id', 'kind', 'address']],
    // Pending subscribers are found by age to expire.
    indexes: [index('status_page_subscribers_pending', ['created_at'], { since: 23, where: () => 'confirmed_at IS NULL' })],
  }),
];
