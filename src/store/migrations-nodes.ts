import type { Migration } from './migrations.js';

/**
 * Regional prober nodes: one row per node, its token looked up by SHA-256 (decisions §1).
 * The running server writes the live figures (`connected` … `clock_offset_ms`) every few
 * seconds so `vigil node list`, another process, can show them. `epoch` and `last_seq` are
 * the newest result recorded from the node's outbox: written in the same transaction as that
 * result, they make a replay after any crash record each result exactly once.
 */
export const NODES_MIGRATION: Migration = {
  version: 8,
  name: 'prober nodes',
  sql: `
    CREATE TABLE nodes (
      id TEXT PRIMARY KEY,
      name TEXT NOT NULL,
      region TEXT NOT NULL,
      token_hash BLOB NOT NULL UNIQUE,
      created_at INTEGER NOT NULL,
      revoked_at INTEGER,
      connected INTEGER NOT NULL DEFAULT 0,
      last_seen_at INTEGER,
      version TEXT,
      assigned INTEGER NOT NULL DEFAULT 0,
      probes_per_second REAL NOT NULL DEFAULT 0,
      outbox_depth INTEGER NOT NULL DEFAULT 0,
      clock_offset_ms REAL,
      rejected_results INTEGER NOT NULL DEFAULT 0,
      dropped_results INTEGER NOT NULL DEFAULT 0,
      epoch TEXT,
      last_seq INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX nodes_region ON nodes(region);
  `,
};
