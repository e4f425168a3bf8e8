// Writes the databases test/unit/schema-upgrade.test.ts opens: a SQLite file and a PostgreSQL
// dump made by an older Vigil, with a few rows in several tables, so the test proves that
// today's schema description brings them forward with their data.
//
//   git worktree add /tmp/vigil-old 6632a6d && cd /tmp/vigil-old && ln -s /work/main/node_modules . && npx tsc -p tsconfig.json
//   node scripts/make-schema-fixtures.mjs /tmp/vigil-old/dist test/fixtures/schema
//
// DIST is the compiled tree of the older commit (its store and its test/helpers/postgres.js):
// the rows are written through that build's own store, as a user's server would have.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';

const [dist, out] = process.argv.slice(2).map((p) => resolve(p));
if (!dist || !out) {
  console.error('usage: node scripts/make-schema-fixtures.mjs DIST OUT');
  process.exit(2);
}
const load = (path) => import(join(dist, path));
const { openSqliteStore } = await load('src/store/sqlite/index.js');
const { openPgStore } = await load('src/store/postgres/index.js');
const { DEFAULT_SETTINGS } = await load('src/core/check-settings.js');
const { startPostgres, postgresBinDir } = await load('test/helpers/postgres.js');

/** The rows test/unit/schema-upgrade.test.ts reads back; keep the two in step. */
const T = Date.UTC(2026, 11, 1, 9);

async function fill(store) {
  const account = { id: 'acc_fixture', email: 'Owner@Example.com', tier: 'pro', maxChecksOverride: null, claimed: true, createdAt: T };
  await store.accounts.insert(account);
  await store.keys.insert(
    { id: 'key_fixture', accountId: account.id, name: 'fixture', scopes: ['checks:read'], access: null, expiresAt: null, disabled: false, revokedAt: null, createdAt: T },
    Buffer.from('fixture-key-hash'.padEnd(32, '.')),
  );
  const check = {
    ...DEFAULT_SETTINGS, name: 'Fixture site', url: 'https://fixture.example.com/', type: 'website', tags: ['env:prod'],
    id: 'chk_fixture', accountId: account.id, disabled: false, disabledReason: null, maintenance: false, maintenanceUntil: null, windowMaintenance: false, heartbeatToken: null,
    status: 'up', consecutiveFailures: 0, degraded: false, lastChecked: T, lastResponseTime: 120, lastStatusCode: 200,
    lastError: null, lastStatusChange: T, probesTotal: 3, probesUp: 3, ssl: null, domain: null, regions: null,
    errorAlerted: false, sslAlerts: null, createdAt: T, updatedAt: T,
  };
  const seq = await store.checks.insert(check, check.url, null);
  await store.history.insertEvent({ checkSeq: seq, at: T + 1_000, status: 'paused', region: null, meta: { reason: 'fixture' } });
  await store.history.insertEvent({ checkSeq: seq, at: T + 2_000, status: 'resumed', region: null, meta: { reason: 'fixture' } });
  await store.stateChanges.append(seq, T, 'up');
  await store.statusPages.insert({
    id: 'spg_fixture', accountId: account.id, slug: 'fixture', title: 'Fixture status', description: 'Kept across the upgrade', customDomain: 'Status.Fixture.example',
    checkIds: [check.id], tags: [], autoIncidents: true, logoUrl: null, accentColor: '#123456', footerText: null, favicon: null, hidePoweredBy: false,
    webhookSubscriptions: true, embedAllowedOrigins: ['https://www.fixture.example'], createdAt: T, updatedAt: T,
  });
}

mkdirSync(out, { recursive: true });
const dir = mkdtempSync(join(tmpdir(), 'vigil-fixture-'));
try {
  const sqlite = openSqliteStore(dir);
  await fill(sqlite);
  await sqlite.close();
  const file = new Database(join(dir, 'vigil.db'));
  file.exec('VACUUM'); // the free pages of the migrations' work: a smaller file, the same rows and schema
  file.close();
  copyFileSync(join(dir, 'vigil.db'), join(out, 'sqlite.db'));
} finally {
  rmSync(dir, { recursive: true, force: true });
}

const cluster = await startPostgres();
try {
  const url = await cluster.createDatabase('fixture');
  const pgStore = await openPgStore(url, { pollMs: 0 });
  await fill(pgStore);
  await pgStore.close();
  // --inserts: plain statements one client.query can replay (no COPY ... FROM stdin).
  const dump = execFileSync(join(postgresBinDir(), 'pg_dump'), ['--inserts', '--no-owner', '--no-privileges', '--dbname', url], { encoding: 'utf8' });
  // Without psql's meta-commands (\restrict): the test replays it through the pg client.
  writeFileSync(join(out, 'postgres.sql'), dump.split('\n').filter((line) => !line.startsWith('\\')).join('\n'));
} finally {
  await cluster.stop();
}
console.log(`wrote ${join(out, 'sqlite.db')} and ${join(out, 'postgres.sql')}`);
