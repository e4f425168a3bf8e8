import type { Migration } from './migrations.js';

/**
 * Issue 26: an alert names the state change it announces (`NewAlert.transition`); one alert per
 * check and transition, whichever central queues it first (PostgreSQL version 8).
 */
export const ALERT_TRANSITIONS_MIGRATION: Migration = {
  version: 21,
  name: 'one alert per check and transition',
  sql: `
    ALTER TABLE alert_events ADD COLUMN transition TEXT;
    CREATE UNIQUE INDEX alert_events_transition ON alert_events(check_id, transition) WHERE transition IS NOT NULL;
  `,
};
