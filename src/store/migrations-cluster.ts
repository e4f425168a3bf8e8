import type { Migration } from './migrations.js';

/**
 * Issue 26: several centrals on one database. A row per central (its epoch fences a superseded
 * process) and a row per slot of checks (`domain/leases.ts` SLOTS), each leased to one central.
 * A single SQLite server records itself here too (`vigil instances`) and leases no slot. Pings
 * a central received for a check another owns wait in `ping_inbox` for the owner.
 */
export const CLUSTER_MIGRATION: Migration = {
  version: 16,
  name: 'cluster instances, check slots, ping inbox',
  sql: `
    CREATE TABLE cluster_instances (
      name TEXT PRIMARY KEY,
      epoch INTEGER NOT NULL,
      version TEXT NOT NULL,
      started_at INTEGER NOT NULL,
      last_seen_at INTEGER NOT NULL,
      lease_until INTEGER NOT NULL,
      checks INTEGER NOT NULL DEFAULT 0,
      renewals INTEGER NOT NULL DEFAULT 0
    ) WITHOUT ROWID;

    CREATE TABLE cluster_slots (
      slot INTEGER PRIMARY KEY,
      owner TEXT,
      owner_epoch INTEGER NOT NULL DEFAULT 0,
      lease_until INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX cluster_slots_owner ON cluster_slots(owner, owner_epoch);
    WITH RECURSIVE s(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM s WHERE n < 1023)
    INSERT INTO cluster_slots (slot) SELECT n FROM s;

    -- Heartbeat pings a central received for a check another owns, until the owner records them.
    CREATE TABLE ping_inbox (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      check_id TEXT NOT NULL REFERENCES checks(id) ON DELETE CASCADE,
      slot INTEGER NOT NULL,
      at INTEGER NOT NULL,
      signal TEXT NOT NULL,
      error TEXT,
      details TEXT NOT NULL,
      region TEXT,
      received_by TEXT NOT NULL
    );
    CREATE INDEX ping_inbox_slot ON ping_inbox(slot, seq);
    CREATE INDEX ping_inbox_check ON ping_inbox(check_id);
  `,
};
