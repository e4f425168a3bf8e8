import type { Migration } from './migrations.js';

/** Rollup columns, shared by the minute, hour and day tables (domain/rollup.ts RollupRow). */
const ROLLUP_COLUMNS = `
  check_seq INTEGER NOT NULL,
  at INTEGER NOT NULL,
  total INTEGER NOT NULL,
  success INTEGER NOT NULL,
  failure INTEGER NOT NULL,
  rt_count INTEGER NOT NULL,
  rt_sum REAL NOT NULL,
  rt_min REAL,
  rt_max REAL,
  rt_hist BLOB NOT NULL,
  dns_count INTEGER NOT NULL,
  dns_sum REAL NOT NULL,
  dns_hist BLOB NOT NULL,
  connect_count INTEGER NOT NULL,
  connect_sum REAL NOT NULL,
  connect_hist BLOB NOT NULL,
  tls_count INTEGER NOT NULL,
  tls_sum REAL NOT NULL,
  tls_hist BLOB NOT NULL,
  ttfb_count INTEGER NOT NULL,
  ttfb_sum REAL NOT NULL,
  ttfb_hist BLOB NOT NULL,
  PRIMARY KEY (check_seq, at)`;

/**
 * Per-check rollups of probe results per minute and per hour (DESIGN 7), plus per day so a
 * 90-day range merges 90 rows rather than 2,160; and how far back the finer sources still
 * reach once retention has pruned them. `at` is the bucket's UTC start.
 */
export const ROLLUPS_MIGRATION: Migration = {
  version: 2,
  name: 'rollups per minute, hour and day, retention horizons',
  sql: `
    CREATE TABLE rollup_minute (${ROLLUP_COLUMNS}) WITHOUT ROWID;
    CREATE TABLE rollup_hour (${ROLLUP_COLUMNS}) WITHOUT ROWID;
    CREATE TABLE rollup_day (${ROLLUP_COLUMNS}) WITHOUT ROWID;

    -- Raised (before rows go) by pruning: raw rows older than raw_from, and minute rollups older
    -- than minutes_from, may be gone, so statistics answer those stretches from coarser rows.
    CREATE TABLE retention_horizons (
      check_seq INTEGER PRIMARY KEY,
      raw_from INTEGER,
      minutes_from INTEGER
    );

    -- Deleting a check (which deletes its history and state changes) deletes its rollups too.
    CREATE TRIGGER checks_delete_rollups AFTER DELETE ON checks BEGIN
      DELETE FROM rollup_minute WHERE check_seq = old.seq;
      DELETE FROM rollup_hour WHERE check_seq = old.seq;
      DELETE FROM rollup_day WHERE check_seq = old.seq;
      DELETE FROM retention_horizons WHERE check_seq = old.seq;
    END;
  `,
};
