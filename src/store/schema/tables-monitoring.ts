import { bigint, blob, bool, index, int, json, real, table, text, time, type ColumnBuilder, type Table } from './describe.js';

/** Accounts, keys, checks and what their probes leave behind. */

/** A rollup table's columns (domain/rollup.ts RollupRow): `at` is the bucket's UTC start. */
function rollupColumns(): ColumnBuilder[] {
  const timing = (phase: string) => [int(`${phase}_count`).notNull(), real(`${phase}_sum`).notNull(), blob(`${phase}_hist`).notNull()];
  return [
    bigint('check_seq').notNull(),
    time('at').notNull(),
    int('total').notNull(),
    int('success').notNull(),
    int('failure').notNull(),
    int('rt_count').notNull(),
    real('rt_sum').notNull(),
    real('rt_min'),
    real('rt_max'),
    blob('rt_hist').notNull(),
    ...['dns', 'connect', 'tls', 'ttfb'].flatMap(timing),
  ];
}

/**
 * Per-check rollups per minute, hour and day (DESIGN 7). On PostgreSQL a bucket may have several
 * partial rows (each batch adds its own; reads sum them), so its key is a plain index, and the
 * table is partitioned by time (partitions.ts creates them ahead and drops expired ones whole).
 */
const rollup = (name: string) =>
  table(name, 2, rollupColumns(), {
    primaryKey: ['check_seq', 'at'],
    sqlite: { withoutRowid: true },
    postgres: { partitionBy: 'at', keyAsIndex: `${name}_check_at` },
  });

export const MONITORING_TABLES: Table[] = [
  table('accounts', 1, [
    text('id').primaryKey(),
    text('email').notNull().caselessUnique('accounts_email'),
    text('tier').notNull(),
    int('max_checks_override'),
    // usage.checks and the maxChecks limit read this instead of counting rows.
    int('check_count').notNull().default(0),
    bool('claimed').notNull().default(true),
    time('created_at').notNull(),
  ], {
    // The claim lifecycle reads only unclaimed accounts, by age.
    indexes: [index('accounts_unclaimed', ['created_at'], { since: 4, where: (p) => p.no('claimed') })],
  }),

  table('api_keys', 1, [
    text('id').primaryKey(),
    text('account_id').notNull().references('accounts'),
    text('name'),
    blob('key_hash').notNull().unique(),
    json('scopes').notNull(),
    json('access'),
    time('expires_at'),
    bool('disabled').notNull().default(false),
    time('revoked_at'),
    time('created_at').notNull(),
  ], { indexes: [index('api_keys_account', ['account_id'])] }),

  table('checks', 1, [
    bigint('seq').primaryKey('autoincrement'),
    text('id').notNull().unique(),
    text('account_id').notNull().references('accounts'),
    text('name').notNull(),
    text('url').notNull(),
    text('url_key'),
    text('type').notNull(),
    text('folder'),
    text('method').notNull(),
    real('interval_minutes').notNull(),
    text('region_override'),
    json('expected_status_codes').notNull(),
    json('headers').notNull(),
    text('body'),
    json('response_validation'),
    bool('cache_control_no_cache').notNull(),
    bool('immediate_recheck').notNull(),
    real('response_time_limit'),
    int('down_confirmation_attempts').notNull(),
    int('ping_packets').notNull(),
    text('timezone'),
    text('schedule'),
    real('grace_seconds'),
    bool('disabled').notNull().default(false),
    text('disabled_reason'),
    bool('maintenance').notNull().default(false),
    time('maintenance_until'),
    text('heartbeat_token'),
    blob('heartbeat_token_hash').unique(),
    text('status').notNull().default('pending'),
    int('consecutive_failures').notNull().default(0),
    bool('degraded').notNull().default(false),
    time('last_checked'),
    real('last_response_time'),
    int('last_status_code'),
    text('last_error'),
    time('last_status_change'),
    bigint('probes_total').notNull().default(0),
    bigint('probes_up').notNull().default(0),
    json('ssl'),
    json('domain'),
    json('regions'),
    bool('error_alerted').notNull().default(false),
    json('ssl_alerts'),
    time('last_synced_at'),
    time('created_at').notNull(),
    time('updated_at').notNull(),
    // `key` or `key:value`, as given.
    json('tags').notNull().default('[]').since(14),
    // Whether a maintenance window is in force for the check now (written at its start and end).
    bool('window_maintenance').notNull().default(false).since(15),
    // Ids of checks of the same account this one depends on.
    json('depends_on').notNull().default('[]').since(20),
  ], {
    indexes: [
      index('checks_account', ['account_id', 'seq']),
      index('checks_account_url', ['account_id', 'url_key'], { unique: true, where: () => 'url_key IS NOT NULL' }),
      // A server finds at once the checks another process (the CLI) created or changed.
      index('checks_updated', ['updated_at'], { since: 10 }),
      index('checks_window_maintenance', ['id'], { since: 15, where: (p) => p.yes('window_maintenance') }),
    ],
    // Room on each page: a result's runtime update stays a heap-only tuple (no index writes).
    postgres: { fillfactor: 70 },
  }),

  table('history', 1, [
    bigint('id').primaryKey('rowid'),
    bigint('check_seq').notNull(),
    time('at').notNull(),
    text('kind').notNull(),
    text('status').notNull(),
    int('status_code'),
    real('response_time'),
    real('dns'),
    real('connect'),
    real('tls'),
    real('ttfb'),
    real('total'),
    text('error'),
    text('region'),
    text('snippet'),
    json('meta'),
  ], {
    indexes: [index('history_check_at', ['check_seq', 'at', 'id'])],
    postgres: { partitionBy: 'at' },
  }),

  // Every status a check entered, for durations, incidents, MTBF and MTTR (DESIGN 7).
  table('state_changes', 1, [
    bigint('id').primaryKey('sqlite-rowid'),
    bigint('check_seq').notNull(),
    time('at').notNull(),
    text('status').notNull(),
  ], { indexes: [index('state_changes_check_at', ['check_seq', 'at', 'id'])] }),

  table('idempotency_keys', 1, [
    text('account_id').notNull(),
    text('key').notNull(),
    text('method').notNull(),
    text('path').notNull(),
    text('body_hash').notNull(),
    int('status').notNull(),
    text('response').notNull(),
    time('created_at').notNull(),
  ], {
    primaryKey: ['account_id', 'key'],
    indexes: [index('idempotency_created', ['created_at'])],
    sqlite: { withoutRowid: true },
  }),

  table('meta', 1, [text('key').primaryKey(), text('value').notNull()], { sqlite: { withoutRowid: true } }),

  // Moves (in the writing transaction) whenever an account, key, OAuth grant or token changes:
  // every process's credential caches compare it (Store.credentialsVersion). SQLite's one
  // process reads its own data_version instead. Since 13: PostgreSQL's first version.
  table('counters', 13, [text('name').primaryKey(), bigint('value').notNull()], { only: 'postgres' }),

  rollup('rollup_minute'),
  rollup('rollup_hour'),
  rollup('rollup_day'),

  // Raised (before rows go) by pruning: raw rows older than raw_from, and minute rollups older
  // than minutes_from, may be gone, so statistics answer those stretches from coarser rows.
  table('retention_horizons', 2, [bigint('check_seq').primaryKey(), time('raw_from'), time('minutes_from')]),

  // What the domain monitor remembers between its daily lookups.
  table('domain_watch', 3, [
    text('check_id').primaryKey().references('checks'),
    time('expires_at'),
    // Which threshold already alerted for expires_at: ok | expiring | expired.
    text('alerted').notNull().default('ok'),
    time('checked_at'),
    text('last_error'),
  ], { sqlite: { withoutRowid: true } }),

  // What `vigil import kuma` created: a second import of the same Kuma creates nothing new.
  table('kuma_imports', 9, [
    text('account_id').notNull().references('accounts'),
    text('source_id').notNull(),
    text('kind').notNull(),
    bigint('kuma_id').notNull(),
    text('vigil_id').notNull(),
    time('created_at').notNull(),
  ], { primaryKey: ['account_id', 'source_id', 'kind', 'kuma_id'], sqlite: { withoutRowid: true } }),

  // Kuma push tokens of imported push monitors, each beside the heartbeat token it came with
  // (regenerating that one retires both).
  table('kuma_push_tokens', 10, [
    blob('token_hash').primaryKey(),
    text('check_id').notNull().references('checks'),
    blob('heartbeat_token_hash').notNull(),
  ], { indexes: [index('kuma_push_tokens_check', ['check_id'])], sqlite: { withoutRowid: true } }),

  table('maintenance_windows', 15, [
    text('id').primaryKey(),
    text('account_id').notNull().references('accounts'),
    text('title').notNull(),
    text('description'),
    json('check_ids').notNull(),
    json('folders').notNull(),
    json('tags').notNull(),
    bool('all_checks').notNull(),
    time('starts_at'),
    time('ends_at'),
    text('schedule'),
    int('duration_minutes'),
    text('timezone'),
    time('created_at').notNull(),
    time('updated_at').notNull(),
  ], { indexes: [index('maintenance_windows_account', ['account_id', 'created_at'])] }),

  // Monitoring as code: the key a monitoring file gives each object, kept across renames.
  table('config_keys', 17, [
    text('account_id').notNull().references('accounts'),
    text('kind').notNull(),
    text('key').notNull(),
    text('object_id').notNull(),
  ], { primaryKey: ['account_id', 'kind', 'key'], sqlite: { withoutRowid: true } }),
];
