import { ROLLUPS_MIGRATION } from './migrations-rollups.js';
import { ALERTS_MIGRATION } from './migrations-alerts.js';
import { OAUTH_MIGRATION } from './migrations-oauth.js';
import { STATUS_PAGES_MIGRATION } from './migrations-status-pages.js';
import { SESSIONS_MIGRATION } from './migrations-sessions.js';
import { ALERTS_ROUTING_MIGRATION } from './migrations-alerts-routing.js';
import { NODES_MIGRATION } from './migrations-nodes.js';
import { KUMA_IMPORTS_MIGRATION } from './migrations-kuma.js';
import { BESIDE_MIGRATION } from './migrations-beside.js';
import { INCIDENTS_MIGRATION } from './migrations-incidents.js';
import { SUBSCRIBERS_MIGRATION } from './migrations-subscribers.js';
import { PAGE_LOOK_MIGRATION } from './migrations-page-look.js';
import { TAGS_MIGRATION } from './migrations-tags.js';
import { MAINTENANCE_WINDOWS_MIGRATION } from './migrations-maintenance-windows.js';
import { CLUSTER_MIGRATION } from './migrations-cluster.js';
import { CONFIG_KEYS_MIGRATION } from './migrations-config-keys.js';
import { PEOPLE_MIGRATION } from './migrations-people.js';
import { PASSKEYS_MIGRATION } from './migrations-passkeys.js';
import { DEPENDENCIES_MIGRATION } from './migrations-dependencies.js';
import { ALERT_TRANSITIONS_MIGRATION } from './migrations-alert-transitions.js';
import { ALERT_OUTBOX_MIGRATION } from './migrations-alert-outbox.js';
import { WEBHOOK_SUBSCRIPTIONS_MIGRATION } from './migrations-webhook-subscriptions.js';
import { IDENTITIES_MIGRATION } from './migrations-identities.js';
import { SIGN_IN_ATTEMPTS_MIGRATION } from './migrations-sign-in-attempts.js';
import { PAGE_EMBEDDING_MIGRATION } from './migrations-page-embedding.js';

/**
 * Versioned schema migrations, applied in order inside one transaction each; the database's
 * `user_version` records the last one applied. Append new versions; never edit a shipped one.
 */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: Migration[] = [
  {
    version: 1,
    name: 'accounts, keys, checks, history, idempotency',
    sql: `
      CREATE TABLE accounts (
        id TEXT PRIMARY KEY,
        email TEXT NOT NULL UNIQUE COLLATE NOCASE,
        tier TEXT NOT NULL,
        max_checks_override INTEGER,
        check_count INTEGER NOT NULL DEFAULT 0,
        claimed INTEGER NOT NULL DEFAULT 1,
        created_at INTEGER NOT NULL
      );

      CREATE TABLE api_keys (
        id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        name TEXT,
        key_hash BLOB NOT NULL UNIQUE,
        scopes TEXT NOT NULL,
        access TEXT,
        expires_at INTEGER,
        disabled INTEGER NOT NULL DEFAULT 0,
        revoked_at INTEGER,
        created_at INTEGER NOT NULL
      );
      CREATE INDEX api_keys_account ON api_keys(account_id);

      CREATE TABLE checks (
        -- AUTOINCREMENT: a sequence number is never reused, so cursors and logs keyed by it stay right.
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        url TEXT NOT NULL,
        url_key TEXT,
        type TEXT NOT NULL,
        folder TEXT,
        method TEXT NOT NULL,
        interval_minutes REAL NOT NULL,
        region_override TEXT,
        expected_status_codes TEXT NOT NULL,
        headers TEXT NOT NULL,
        body TEXT,
        response_validation TEXT,
        cache_control_no_cache INTEGER NOT NULL,
        immediate_recheck INTEGER NOT NULL,
        response_time_limit REAL,
        down_confirmation_attempts INTEGER NOT NULL,
        ping_packets INTEGER NOT NULL,
        timezone TEXT,
        schedule TEXT,
        grace_seconds REAL,
        disabled INTEGER NOT NULL DEFAULT 0,
        disabled_reason TEXT,
        maintenance INTEGER NOT NULL DEFAULT 0,
        maintenance_until INTEGER,
        heartbeat_token TEXT,
        heartbeat_token_hash BLOB UNIQUE,
        status TEXT NOT NULL DEFAULT 'pending',
        consecutive_failures INTEGER NOT NULL DEFAULT 0,
        degraded INTEGER NOT NULL DEFAULT 0,
        last_checked INTEGER,
        last_response_time REAL,
        last_status_code INTEGER,
        last_error TEXT,
        last_status_change INTEGER,
        probes_total INTEGER NOT NULL DEFAULT 0,
        probes_up INTEGER NOT NULL DEFAULT 0,
        ssl TEXT,
        domain TEXT,
        regions TEXT,
        error_alerted INTEGER NOT NULL DEFAULT 0,
        ssl_alerts TEXT,
        last_synced_at INTEGER,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE INDEX checks_account ON checks(account_id, seq);
      -- usage.checks and the maxChecks limit read this instead of counting rows.
      CREATE TRIGGER checks_count_insert AFTER INSERT ON checks BEGIN
        UPDATE accounts SET check_count = check_count + 1 WHERE id = NEW.account_id;
      END;
      CREATE TRIGGER checks_count_delete AFTER DELETE ON checks BEGIN
        UPDATE accounts SET check_count = check_count - 1 WHERE id = OLD.account_id;
      END;
      CREATE UNIQUE INDEX checks_account_url ON checks(account_id, url_key) WHERE url_key IS NOT NULL;

      CREATE TABLE history (
        id INTEGER PRIMARY KEY,
        check_seq INTEGER NOT NULL,
        at INTEGER NOT NULL,
        kind TEXT NOT NULL,
        status TEXT NOT NULL,
        status_code INTEGER,
        response_time REAL,
        dns REAL, connect REAL, tls REAL, ttfb REAL, total REAL,
        error TEXT,
        region TEXT,
        snippet TEXT,
        meta TEXT
      );
      CREATE INDEX history_check_at ON history(check_seq, at, id);

      -- Every status a check entered, for durations, incidents, MTBF and MTTR (DESIGN 7).
      CREATE TABLE state_changes (
        check_seq INTEGER NOT NULL,
        at INTEGER NOT NULL,
        status TEXT NOT NULL
      );
      CREATE INDEX state_changes_check_at ON state_changes(check_seq, at);

      CREATE TABLE idempotency_keys (
        account_id TEXT NOT NULL,
        key TEXT NOT NULL,
        method TEXT NOT NULL,
        path TEXT NOT NULL,
        body_hash TEXT NOT NULL,
        status INTEGER NOT NULL,
        response TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (account_id, key)
      ) WITHOUT ROWID;
      CREATE INDEX idempotency_created ON idempotency_keys(created_at);

      CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
    `,
  },
  ROLLUPS_MIGRATION,
  ALERTS_MIGRATION,
  OAUTH_MIGRATION,
  STATUS_PAGES_MIGRATION,
  SESSIONS_MIGRATION,
  ALERTS_ROUTING_MIGRATION,
  NODES_MIGRATION,
  KUMA_IMPORTS_MIGRATION,
  BESIDE_MIGRATION,
  INCIDENTS_MIGRATION,
  SUBSCRIBERS_MIGRATION,
  PAGE_LOOK_MIGRATION,
  TAGS_MIGRATION,
  MAINTENANCE_WINDOWS_MIGRATION,
  CLUSTER_MIGRATION,
  CONFIG_KEYS_MIGRATION,
  PEOPLE_MIGRATION,
  PASSKEYS_MIGRATION,
  DEPENDENCIES_MIGRATION,
  ALERT_TRANSITIONS_MIGRATION,
  ALERT_OUTBOX_MIGRATION,
  WEBHOOK_SUBSCRIPTIONS_MIGRATION,
  IDENTITIES_MIGRATION,
  SIGN_IN_ATTEMPTS_MIGRATION,
  PAGE_EMBEDDING_MIGRATION,
];
