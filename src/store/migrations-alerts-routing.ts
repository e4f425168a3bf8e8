import type { Migration } from './migrations.js';

/**
 * Issue 17: per-check routing and reminders on email settings and webhooks; deliveries learn
 * their check (order is kept per target and check) and when their retries stop.
 */
export const ALERTS_ROUTING_MIGRATION: Migration = {
  version: 5,
  name: 'alert routing, reminders, delivery order and retry window',
  sql: `
    ALTER TABLE email_settings ADD COLUMN check_ids TEXT NOT NULL DEFAULT '[]';
    ALTER TABLE email_settings ADD COLUMN folders TEXT NOT NULL DEFAULT '[]';
    ALTER TABLE email_settings ADD COLUMN remind_every_minutes INTEGER;
    ALTER TABLE webhooks ADD COLUMN check_ids TEXT NOT NULL DEFAULT '[]';
    ALTER TABLE webhooks ADD COLUMN folders TEXT NOT NULL DEFAULT '[]';
    ALTER TABLE webhooks ADD COLUMN remind_every_minutes INTEGER;

    ALTER TABLE alert_deliveries ADD COLUMN check_id TEXT NOT NULL DEFAULT '';
    -- Retries stop at this time (alerts.retryForHours after queueing, or after a manual retry).
    ALTER TABLE alert_deliveries ADD COLUMN retry_until INTEGER NOT NULL DEFAULT 0;
    UPDATE alert_deliveries SET
      check_id = (SELECT check_id FROM alert_events a WHERE a.seq = alert_deliveries.alert_seq),
      retry_until = next_at + 86400000;
    -- The head of each target's line per check: what is still unfinished, in queue order.
    CREATE INDEX alert_deliveries_line ON alert_deliveries(target, check_id, seq) WHERE status IN ('pending', 'sending');
    -- The delivery log by check, newest first, and reminders' last send per check.
    CREATE INDEX alert_deliveries_check ON alert_deliveries(check_id, seq);
  `,
};
