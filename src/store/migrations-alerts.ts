import type { Migration } from './migrations.js';

/**
 * Alert settings (email, webhooks), the persisted delivery queue, and what the domain monitor
 * remembers between its daily lookups.
 */
export const ALERTS_MIGRATION: Migration = {
  version: 3,
  name: 'email settings, webhooks, alert events and deliveries, domain watch',
  sql: `
    CREATE TABLE email_settings (
      account_id TEXT PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
      enabled INTEGER NOT NULL,
      recipients TEXT NOT NULL,
      events TEXT NOT NULL,
      email_format TEXT NOT NULL,
      updated_at INTEGER NOT NULL
    ) WITHOUT ROWID;

    CREATE TABLE webhooks (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      id TEXT NOT NULL UNIQUE,
      account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      name TEXT NOT NULL,
      -- The full URL, credentials included: it is needed to deliver. Responses and logs cut it.
      url TEXT NOT NULL,
      url_key TEXT NOT NULL,
      webhook_type TEXT NOT NULL,
      events TEXT NOT NULL,
      enabled INTEGER NOT NULL DEFAULT 1,
      -- Stored recoverably (decisions §1): signing needs the secret itself.
      secret TEXT,
      created_at INTEGER NOT NULL
    );
    CREATE UNIQUE INDEX webhooks_account_url ON webhooks(account_id, url_key);

    -- One row per alert: what it says (AlertContent JSON), kept once however many channels get it.
    CREATE TABLE alert_events (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      check_id TEXT NOT NULL,
      event TEXT NOT NULL,
      content TEXT NOT NULL,
      created_at INTEGER NOT NULL
    );
    CREATE INDEX alert_events_check ON alert_events(check_id, seq);
    CREATE INDEX alert_events_created ON alert_events(created_at);

    -- One row per (alert, channel target). status: pending -> sending (leased) -> delivered |
    -- failed | cancelled. next_at is when the row may next be claimed: the retry time of a
    -- pending row, the lease end of a sending one (a crash mid-send makes it claimable again).
    CREATE TABLE alert_deliveries (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      id TEXT NOT NULL UNIQUE,
      alert_seq INTEGER NOT NULL REFERENCES alert_events(seq) ON DELETE CASCADE,
      channel TEXT NOT NULL,
      target TEXT NOT NULL,
      status TEXT NOT NULL,
      attempts INTEGER NOT NULL DEFAULT 0,
      next_at INTEGER NOT NULL,
      last_status INTEGER,
      last_error TEXT,
      finished_at INTEGER
    );
    CREATE INDEX alert_deliveries_alert ON alert_deliveries(alert_seq);
    -- Only unfinished rows are indexed: the queue stays small however long the record grows.
    CREATE INDEX alert_deliveries_due ON alert_deliveries(next_at) WHERE status IN ('pending', 'sending');

    CREATE TABLE domain_watch (
      check_id TEXT PRIMARY KEY REFERENCES checks(id) ON DELETE CASCADE,
      expires_at INTEGER,
      -- Which threshold already alerted for expires_at: ok | expiring | expired.
      alerted TEXT NOT NULL DEFAULT 'ok',
      checked_at INTEGER,
      last_error TEXT
    ) WITHOUT ROWID;
  `,
};
