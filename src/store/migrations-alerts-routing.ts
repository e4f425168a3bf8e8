import type { Migration } from './migrations.js';

/**
 * Issue 17: per-check routing and reminders on email settings and webhooks; deliveries learn
 * their check (order is kept per target and check) and when their retries stop.
 */
export const ALERTS_ROUTING_MIGRATION: Migration = {
  version: 7,
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
    -- Order per target and check: a row waits (held = 1) while an earlier one of its line is
    -- unfinished; finishing a row releases the next. At most one row per line is unheld.
    ALTER TABLE alert_deliveries ADD COLUMN held INTEGER NOT NULL DEFAULT 0;
    CREATE INDEX alert_deliveries_line ON alert_deliveries(target, check_id, seq) WHERE status IN ('pending', 'sending');
    UPDATE alert_deliveries SET held = 1 WHERE status IN ('pending', 'sending') AND EXISTS (
      SELECT 1 FROM alert_deliveries e WHERE e.target = alert_deliveries.target AND e.check_id = alert_deliveries.check_id
        AND e.status IN ('pending', 'sending') AND e.seq < alert_deliveries.seq);
    -- What the sender may claim: unfinished, not held.
    CREATE INDEX alert_deliveries_ready ON alert_deliveries(next_at) WHERE status IN ('pending', 'sending') AND held = 0;
    -- The delivery log by check, newest first, and reminders' last send per check.
    CREATE INDEX alert_deliveries_check ON alert_deliveries(check_id, seq);
  `,
};
