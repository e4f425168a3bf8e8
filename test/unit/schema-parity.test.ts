import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import pg from 'pg';
import { openDatabase } from '../../src/store/db.js';
import { PgDb } from '../../src/store/postgres/db.js';
import type { Schema } from '../../src/store/schema/describe.js';
import { SCHEMA } from '../../src/store/schema/index.js';
import { sqliteMigrations } from '../../src/store/schema/sqlite.js';
import { readPgSchema, readSqliteSchema, schemaDrift, type LiveSchema } from '../helpers/live-schema.js';
import { startPostgres, type PgCluster } from '../helpers/postgres.js';

/**
 * The two stores' live schemas, each migrated fresh from the one description, agree: tables,
 * columns, their storage families, nullability and defaults, primary keys, indexes, unique
 * constraints, references. What differs on purpose is listed here with its reason; anything
 * else fails, and so does an entry here that no longer differs.
 */
const DELIBERATE: Record<string, string> = {
  'table counters only in postgres': "SQLite's one process reads its own data_version for credentialsVersion",
  'table migrate_progress only in postgres': '`vigil store migrate` copies from SQLite into PostgreSQL only',
  'table vigil_schema only in postgres': 'PostgreSQL records versions in a table, SQLite in user_version',
  'history.id: default none in sqlite, generated in postgres': 'SQLite numbers it as the rowid; PostgreSQL by a sequence',
  'history: primary key (id) in sqlite, () in postgres': "a partitioned table's key would have to hold `at`",
  ...Object.fromEntries(['minute', 'hour', 'day'].flatMap((size) => [
    [`rollup_${size}: primary key (check_seq, at) in sqlite, () in postgres`, 'on PostgreSQL each batch adds its own partial row of a bucket; reads sum them'],
    [`rollup_${size}: index (check_seq, at) only in postgres`, 'the key of SQLite, as an index'],
  ])),
  'state_changes.id only in postgres': "SQLite's rowid",
  'state_changes: primary key () in sqlite, (id) in postgres': "SQLite's rowid",
  'state_changes: index (check_seq, at) only in sqlite': 'every SQLite index ends with the rowid',
  'state_changes: index (check_seq, at, id) only in postgres': 'the same index, its rowid said',
  'trigger checks_count_insert only in sqlite': "PostgreSQL's check writes keep check_count",
  'trigger checks_count_delete only in sqlite': "PostgreSQL's check writes keep check_count",
  'trigger checks_delete_rollups only in sqlite': "PostgreSQL's check deletion deletes the rollups",
};

/** PostgreSQL's partitions of a fresh store: each partitioned table's DEFAULT one (partitions.ts adds the dated ones). */
const PARTITIONS = ['history_default', 'rollup_day_default', 'rollup_hour_default', 'rollup_minute_default'];

let cluster: PgCluster;
let postgres: LiveSchema;
before(async () => {
  cluster = await startPostgres();
  const url = await cluster.createDatabase();
  const db = new PgDb(url);
  await db.migrate();
  await db.close();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    postgres = await readPgSchema(client);
  } finally {
    await client.end();
  }
});
after(async () => {
  await cluster.stop();
});

function freshSqlite(schema?: Schema): LiveSchema {
  if (!schema) {
    const db = openDatabase(':memory:');
    try {
      return readSqliteSchema(db);
    } finally {
      db.close();
    }
  }
  const db = new Database(':memory:');
  try {
    for (const m of sqliteMigrations(schema)) db.exec(m.sql);
    return readSqliteSchema(db);
  } finally {
    db.close();
  }
}

test('SQLite and PostgreSQL migrated fresh differ only where the description says they should', () => {
  const drift = schemaDrift(freshSqlite(), postgres, ['sqlite', 'postgres']);
  assert.deepEqual(drift.filter((line) => !DELIBERATE[line]), [], 'drift nobody decided');
  assert.deepEqual(Object.keys(DELIBERATE).filter((line) => !drift.includes(line)), [], 'listed as deliberate, yet no longer differs');
  assert.deepEqual(postgres.partitions.sort(), PARTITIONS);
});

test('a description one dialect renders differently is reported', () => {
  // A drifted description as a renderer bug would produce it: SQLite's side of one column
  // nullable, another's default changed, an index lost.
  const drifted: Schema = {
    ...SCHEMA,
    tables: SCHEMA.tables.map((t) => {
      if (t.name === 'checks') {
        return { ...t, columns: t.columns.map((c) => (c.name === 'url' ? { ...c, nullable: true } : c.name === 'status' ? { ...c, default: 'up' } : c)) };
      }
      if (t.name === 'webhooks') return { ...t, indexes: [] };
      return t;
    }),
  };
  const drift = schemaDrift(freshSqlite(drifted), postgres, ['sqlite', 'postgres']).filter((line) => !DELIBERATE[line]);
  assert.deepEqual(drift, [
    "checks.status: default 'up' in sqlite, 'pending' in postgres",
    'checks.url: nullable in sqlite, not null in postgres',
    'webhooks: index unique (account_id, url_key) only in postgres',
  ]);
});
