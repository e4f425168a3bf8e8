import { bigint, blob, bool, index, int, json, real, table, text, time, type Table } from './describe.js';

/** Prober nodes, the centrals sharing one store, and `vigil store migrate`'s progress. */
export const OPERATIONS_TABLES: Table[] = [
  // A node's result cursor (epoch, last_seq) makes its results count exactly once.
  table('nodes', 8, [
    text('id').primaryKey(),
    text('name').notNull(),
    text('region').notNull(),
    blob('token_hash').notNull().unique(),
    time('created_at').notNull(),
    time('revoked_at'),
    bool('connected').notNull().default(false),
    time('last_seen_at'),
    text('version'),
    int('assigned').notNull().default(0),
    real('probes_per_second').notNull().default(0),
    int('outbox_depth').notNull().default(0),
    real('clock_offset_ms'),
    bigint('rejected_results').notNull().default(0),
    bigint('dropped_results').notNull().default(0),
    text('epoch'),
    bigint('last_seq').notNull().default(0),
  ], { indexes: [index('nodes_region', ['region'])] }),

  // A row per central: its epoch fences a superseded process. A single SQLite server records
  // itself here too (`vigil instances`) and leases no slot.
  table('cluster_instances', 16, [
    text('name').primaryKey(),
    bigint('epoch').notNull(),
    text('version').notNull(),
    time('started_at').notNull(),
    time('last_seen_at').notNull(),
    time('lease_until').notNull(),
    int('checks').notNull().default(0),
    bigint('renewals').notNull().default(0),
  ], { sqlite: { withoutRowid: true } }),

  // A row per slot of checks (domain/leases.ts SLOTS), each leased to one central.
  table('cluster_slots', 16, [
    int('slot').primaryKey(),
    text('owner'),
    bigint('owner_epoch').notNull().default(0),
    time('lease_until').notNull().default(0),
  ], { indexes: [index('cluster_slots_owner', ['owner', 'owner_epoch'])] }),

  // Heartbeat pings a central received for a check another owns, until the owner records them.
  table('ping_inbox', 16, [
    bigint('seq').primaryKey('autoincrement'),
    text('check_id').notNull().references('checks'),
    int('slot').notNull(),
    time('at').notNull(),
    text('signal').notNull(),
    text('error'),
    json('details').notNull(),
    text('region'),
    text('received_by').notNull(),
  ], { indexes: [index('ping_inbox_slot', ['slot', 'seq']), index('ping_inbox_check', ['check_id'])] }),

  // How far each table's copy from SQLite got (`vigil store migrate` resumes from it): only a
  // PostgreSQL store is copied into. Since 13: PostgreSQL's first version.
  table('migrate_progress', 13, [
    text('table_name').primaryKey(),
    text('source').notNull(),
    bigint('copied').notNull(),
    text('last_key'),
    bool('done').notNull().default(false),
  ], { only: 'postgres' }),
];
