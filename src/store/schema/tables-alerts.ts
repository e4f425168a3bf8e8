import { bigint, bool, index, int, json, table, text, time, type Table } from './describe.js';

/** Alert settings, the alert outbox and the persisted delivery queue. */

const UNFINISHED = "status IN ('pending', 'sending')";

export const ALERT_TABLES: Table[] = [
  table('email_settings', 3, [
    text('account_id').primaryKey().references('accounts'),
    bool('enabled').notNull(),
    json('recipients').notNull(),
    json('events').notNull(),
    text('email_format').notNull(),
    time('updated_at').notNull(),
    json('check_ids').notNull().default('[]').since(7),
    json('folders').notNull().default('[]').since(7),
    int('remind_every_minutes').since(7),
    json('tags').notNull().default('[]').since(14),
  ], { sqlite: { withoutRowid: true } }),

  table('webhooks', 3, [
    bigint('seq').primaryKey('autoincrement'),
    text('id').notNull().unique(),
    text('account_id').notNull().references('accounts'),
    text('name').notNull(),
    // The full URL, credentials included: it is needed to deliver. Responses and logs cut it.
    text('url').notNull(),
    text('url_key').notNull(),
    text('webhook_type').notNull(),
    json('events').notNull(),
    bool('enabled').notNull().default(true),
    // Stored recoverably (decisions §1): signing needs the secret itself.
    text('secret'),
    time('created_at').notNull(),
    json('check_ids').notNull().default('[]').since(7),
    json('folders').notNull().default('[]').since(7),
    int('remind_every_minutes').since(7),
    json('tags').notNull().default('[]').since(14),
  ], { indexes: [index('webhooks_account_url', ['account_id', 'url_key'], { unique: true })] }),

  // One row per alert: what it says (AlertContent JSON), kept once however many channels get it.
  table('alert_events', 3, [
    bigint('seq').primaryKey('autoincrement'),
    text('account_id').notNull().references('accounts'),
    text('check_id').notNull(),
    text('event').notNull(),
    json('content').notNull(),
    time('created_at').notNull(),
    // The state change it announces: one alert per check and transition, whichever central queues it first.
    text('transition').since(21),
  ], {
    indexes: [
      index('alert_events_check', ['check_id', 'seq']),
      index('alert_events_created', ['created_at']),
      index('alert_events_transition', ['check_id', 'transition'], { since: 21, unique: true, where: () => 'transition IS NOT NULL' }),
    ],
  }),

  // One row per (alert, channel target). status: pending -> sending (leased) -> delivered |
  // failed | cancelled. next_at is when the row may next be claimed: the retry time of a
  // pending row, the lease end of a sending one (a crash mid-send makes it claimable again).
  table('alert_deliveries', 3, [
    bigint('seq').primaryKey('autoincrement'),
    text('id').notNull().unique(),
    bigint('alert_seq').notNull().references('alert_events', 'seq'),
    text('channel').notNull(),
    text('target').notNull(),
    text('status').notNull(),
    int('attempts').notNull().default(0),
    time('next_at').notNull(),
    int('last_status'),
    text('last_error'),
    time('finished_at'),
    text('check_id').notNull().default('').since(7),
    // Retries stop at this time (alerts.retryForHours after queueing, or after a manual retry).
    time('retry_until').notNull().default(0).since(7),
    // Order per target and check: a row waits while an earlier one of its line is unfinished;
    // finishing a row releases the next. At most one row per line is not held.
    bool('held').notNull().default(false).since(7),
  ], {
    indexes: [
      index('alert_deliveries_alert', ['alert_seq']),
      // Only unfinished rows are indexed: the queue stays small however long the record grows.
      index('alert_deliveries_due', ['next_at'], { where: () => UNFINISHED }),
      index('alert_deliveries_line', ['target', 'check_id', 'seq'], { since: 7, where: () => UNFINISHED }),
      // What the sender may claim: unfinished, not held.
      index('alert_deliveries_ready', ['next_at'], { since: 7, where: (p) => `${UNFINISHED} AND ${p.no('held')}` }),
      // The delivery log by check, newest first, and reminders' last send per check.
      index('alert_deliveries_check', ['check_id', 'seq'], { since: 7 }),
    ],
  }),

  // Alert events written with the state change that raised them, until routed (store/alert-outbox.ts).
  table('alert_outbox', 22, [
    text('id').primaryKey(),
    text('check_id').notNull(),
    text('account_id').notNull(),
    text('event').notNull(),
    time('created_at').notNull(),
  ], { indexes: [index('alert_outbox_created', ['created_at'])] }),
];
