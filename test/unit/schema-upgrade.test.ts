import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { DEFAULT_SETTINGS } from '../../src/core/check-settings.js';
import { openDatabase, SCHEMA_VERSION } from '../../src/store/db.js';
import { openPgStore } from '../../src/store/postgres/index.js';
import { PG_SCHEMA_VERSION } from '../../src/store/postgres/schema.js';
import { openSqliteStore } from '../../src/store/sqlite/index.js';
import type { Store } from '../../src/store/store.js';
import { readPgSchema, readSqliteSchema } from '../helpers/live-schema.js';
import { startPostgres, type PgCluster } from '../helpers/postgres.js';

/**
 * Databases made by Vigil 6632a6d, before the schema was described once (test/fixtures/schema,
 * written by scripts/make-schema-fixtures.mjs: SQLite at user_version 26, PostgreSQL at its own
 * version 13), open under this build with every row, and end with the schema a fresh store gets.
 */

const FIXTURES = join(import.meta.dirname, '../../../test/fixtures/schema');
const T = Date.UTC(2026, 11, 1, 9);

/** The rows scripts/make-schema-fixtures.mjs wrote, read back through the store. */
async function assertRowsKept(store: Store): Promise<void> {
  const account = await store.accounts.byEmail('owner@example.com');
  assert.deepEqual(account, { id: 'acc_fixture', email: 'Owner@Example.com', tier: 'pro', maxChecksOverride: null, claimed: true, createdAt: T });
  assert.equal((await store.keys.byId('key_fixture'))?.name, 'fixture');
  assert.equal((await store.keys.byHash(Buffer.from('fixture-key-hash'.padEnd(32, '.'))))?.id, 'key_fixture');
  const check = await store.checks.byId('chk_fixture');
  assert.ok(check);
  assert.deepEqual(
    { name: check.name, url: check.url, tags: check.tags, status: check.status, dependsOn: check.dependsOn, windowMaintenance: check.windowMaintenance, createdAt: check.createdAt },
    { name: 'Fixture site', url: 'https://fixture.example.com/', tags: ['env:prod'], status: 'up', dependsOn: [], windowMaintenance: false, createdAt: T },
  );
  assert.equal(await store.checks.countForAccount('acc_fixture'), 1);
  const history = await store.history.forCheck(check.seq, 10);
  assert.deepEqual(history.map((r) => [r.at, r.status]), [[T + 2_000, 'resumed'], [T + 1_000, 'paused']]);
  assert.deepEqual(await store.stateChanges.between(check.seq, T, T + 1), [{ at: T, status: 'up' }]);
  const page = await store.statusPages.bySlug('fixture');
  assert.deepEqual(page, {
    id: 'spg_fixture', accountId: 'acc_fixture', slug: 'fixture', title: 'Fixture status', description: 'Kept across the upgrade', customDomain: 'Status.Fixture.example',
    checkIds: ['chk_fixture'], tags: [], autoIncidents: true, logoUrl: null, accentColor: '#123456', footerText: null, favicon: null, hidePoweredBy: false,
    webhookSubscriptions: true, embedAllowedOrigins: ['https://www.fixture.example'], createdAt: T, updatedAt: T,
  });
  // New rows go on after the old ones: the check sequence was kept.
  const draft = {
    ...DEFAULT_SETTINGS, name: 'After', url: 'https://after.example.com/', type: 'website' as const,
    id: 'chk_after', accountId: 'acc_fixture', disabled: false, disabledReason: null, maintenance: false, maintenanceUntil: null, windowMaintenance: false, heartbeatToken: null,
    status: 'pending' as const, consecutiveFailures: 0, degraded: false, lastChecked: null, lastResponseTime: null, lastStatusCode: null,
    lastError: null, lastStatusChange: null, probesTotal: 0, probesUp: 0, ssl: null, domain: null, regions: null,
    errorAlerted: false, sslAlerts: null, createdAt: T, updatedAt: T,
  };
  assert.ok((await store.checks.insert(draft, draft.url, null)) > check.seq);
}

describe('a SQLite database of user_version 26', () => {
  test('opens with its rows, at the shared version, with the schema a fresh one gets', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vigil-upgrade-'));
    const freshDir = mkdtempSync(join(tmpdir(), 'vigil-fresh-'));
    try {
      copyFileSync(join(FIXTURES, 'sqlite.db'), join(dir, 'vigil.db'));
      const old = new Database(join(dir, 'vigil.db'), { readonly: true });
      assert.equal(old.pragma('user_version', { simple: true }), 26);
      old.close();

      const store = openSqliteStore(dir);
      try {
        await assertRowsKept(store);
      } finally {
        await store.close();
      }
      assert.equal(readdirSync(dir).filter((f) => f.startsWith(`vigil.db.v26-before-v${SCHEMA_VERSION}-`)).length, 1, 'copied aside first');

      const migrated = new Database(join(dir, 'vigil.db'), { readonly: true });
      const fresh = openDatabase(freshDir);
      try {
        assert.equal(migrated.pragma('user_version', { simple: true }), SCHEMA_VERSION);
        assert.deepEqual(readSqliteSchema(migrated), readSqliteSchema(fresh));
      } finally {
        migrated.close();
        fresh.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
      rmSync(freshDir, { recursive: true, force: true });
    }
  });
});

describe('a PostgreSQL database of its own version 13', () => {
  let cluster: PgCluster;
  before(async () => {
    cluster = await startPostgres();
  });
  after(async () => {
    await cluster.stop();
  });

  const query = async <T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end();
    }
  };

  test('opens with its rows, its versions renumbered to the shared ones, with the schema a fresh one gets', async () => {
    const url = await cluster.createDatabase();
    await query(url, (c) => c.query(readFileSync(join(FIXTURES, 'postgres.sql'), 'utf8')));
    assert.deepEqual(await query(url, async (c) => (await c.query('SELECT max(version) AS v FROM vigil_schema')).rows[0]), { v: 13 });

    const store = await openPgStore(url, { pollMs: 0 });
    try {
      await assertRowsKept(store as unknown as Store);
    } finally {
      await store.close();
    }
    const versions = await query(url, async (c) => (await c.query<{ version: number }>('SELECT version FROM vigil_schema ORDER BY version')).rows.map((r) => r.version));
    assert.deepEqual(versions, [13, ...Array.from({ length: PG_SCHEMA_VERSION - 14 }, (_, i) => i + 15)], "its own 1 is the shared 13, its 2 to 13 the shared 15 to 26");

    const freshUrl = await cluster.createDatabase();
    await (await openPgStore(freshUrl, { pollMs: 0 })).close();
    const migrated = await query(url, readPgSchema);
    const fresh = await query(freshUrl, readPgSchema);
    assert.deepEqual({ ...migrated, partitions: [] }, { ...fresh, partitions: [] }, 'the time partitions are made for the day each store opened');
  });

  test('a database the upgrade fails on is left as it was: every version commits at once', async () => {
    const url = await cluster.createDatabase();
    await query(url, (c) => c.query(readFileSync(join(FIXTURES, 'postgres.sql'), 'utf8')));
    // The version table refuses version 27: the renumbering before it must roll back too.
    await query(url, (c) => c.query('ALTER TABLE vigil_schema ADD CONSTRAINT below_27 CHECK (version < 27)'));
    await assert.rejects(openPgStore(url, { pollMs: 0 }));
    const versions = await query(url, async (c) => (await c.query<{ version: number }>('SELECT version FROM vigil_schema ORDER BY version')).rows.map((r) => r.version));
    assert.deepEqual(versions, Array.from({ length: 13 }, (_, i) => i + 1), 'still its own numbers: the renumbering rolled back with the rest');
  });
});
