import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_SETTINGS } from '../../src/core/check-settings.js';
import type { Check } from '../../src/domain/records.js';
import { openSqliteStore, type SqliteStore } from '../../src/store/sqlite/index.js';
import { openPgStore } from '../../src/store/postgres/index.js';
import type { WriteRecord } from '../../src/store/writes.js';
import { startPostgres, type PgCluster } from '../helpers/postgres.js';

/**
 * `vigil store migrate --to postgres://…` (issue 26 item 4) as a user runs it: a SQLite data
 * directory copied whole into an empty PostgreSQL database, progress on stderr; an interrupted
 * copy (kill -9) resumed; a target holding other Vigil data refused.
 */

const CLI = fileURLToPath(new URL('../../src/cli.js', import.meta.url));
const T = Date.UTC(2026, 9, 1, 12);
let cluster: PgCluster;
const dirs: string[] = [];
before(async () => {
  cluster = await startPostgres();
});
after(async () => {
  await cluster.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function migrate(dataDir: string, url: string, ...extra: string[]) {
  const r = spawnSync(process.execPath, [CLI, 'store', 'migrate', '--to', url, ...extra], {
    env: { ...process.env, VIGIL_CONFIG: '', VIGIL_DATA_DIR: dataDir },
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const result = (c: Check, at: number, up: boolean): WriteRecord => ({
  kind: 'observation', checkId: c.id, checkSeq: c.seq, at,
  result: { checkSeq: c.seq, at, kind: 'probe', status: up ? 'up' : 'down', statusCode: up ? 200 : 500, responseTime: 50 + (at % 7), timing: null, error: up ? null : 'HTTP 500', region: 'local', snippet: null, meta: null },
  event: null, sample: { ok: up, responseTime: 50 + (at % 7), timing: null }, sampleAt: at,
  runtime: null, statusChange: up ? null : 'down', verifyStatus: null, endMaintenance: null, domain: null, domainMemory: null,
});

/** A data directory with a bit of everything, and `results` probe results of one check. */
async function sqliteWithData(results: number): Promise<{ dir: string; check: Check; keyHash: Buffer }> {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-migrate-'));
  dirs.push(dir);
  const store: SqliteStore = openSqliteStore(dir);
  const acc = { id: 'acc_migrate', email: 'Ops@Example.com', tier: 'pro' as const, maxChecksOverride: null, claimed: true, createdAt: T };
  await store.accounts.insert(acc);
  const keyHash = Buffer.alloc(32, 7);
  await store.keys.insert({ id: 'key_migrate', accountId: acc.id, name: 'admin', scopes: ['checks:read'], access: null, expiresAt: null, disabled: false, revokedAt: null, createdAt: T }, keyHash);
  const draft: Omit<Check, 'seq'> = {
    ...DEFAULT_SETTINGS, name: 'site', url: 'https://site.example.com/', type: 'website',
    id: 'chk_migrate', accountId: acc.id, disabled: false, disabledReason: null, maintenance: false, maintenanceUntil: null, windowMaintenance: false, heartbeatToken: null,
    status: 'up', consecutiveFailures: 0, degraded: false, lastChecked: null, lastResponseTime: null, lastStatusCode: null,
    lastError: null, lastStatusChange: null, probesTotal: 0, probesUp: 0, ssl: null, domain: null, regions: null,
    errorAlerted: false, sslAlerts: null, createdAt: T, updatedAt: T,
  };
  const check = { ...draft, seq: await store.checks.insert(draft, draft.url, null) };
  await store.statusPages.insert({ id: 'spg_migrate', accountId: acc.id, slug: 'status', title: 'Status', description: null, customDomain: 'Status.Example.com', checkIds: [check.id], tags: ['env:prod'], autoIncidents: true, logoUrl: null, accentColor: '#123456', footerText: null, favicon: null, hidePoweredBy: true, webhookSubscriptions: false, embedAllowedOrigins: [], createdAt: T, updatedAt: T });
  await store.sessions.insert({ id: 'ses_migrate', accountId: acc.id, keyId: 'key_migrate', userId: null, method: 'api_key', address: '127.0.0.1', userAgent: null, createdAt: T, expiresAt: T + 1 }, Buffer.alloc(32, 9));
  await store.nodes.insert({ id: 'nod_migrate', name: 'edge', region: 'eu-2', createdAt: T, revokedAt: null }, Buffer.alloc(32, 3));
  await store.alerts.webhooks.insert({
    id: 'whk_migrate', accountId: acc.id, name: 'ops', url: 'https://hooks.example.com/x', urlKey: 'hooks.example.com/x', webhookType: 'generic',
    events: ['website_down'], enabled: true, secret: 's', createdAt: T, checkIds: [], folders: [], tags: ['team:ops'], remindEveryMinutes: null,
  });
  await store.alerts.deliveries.enqueue([{ accountId: acc.id, checkId: check.id, event: 'website_down', contentJson: '{}', createdAt: T, retryUntil: T + 1, deliveries: [{ id: 'dlv_migrate', channel: 'webhook', target: 'whk_migrate' }] }], T);
  for (let i = 0; i < results; i += 100) {
    const batch = Array.from({ length: Math.min(100, results - i) }, (_, k) => result(check, T + (i + k) * 20_000, (i + k) % 10 !== 0));
    await store.applyWrites(batch, () => assert.fail('no record fails'));
  }
  await store.rollups.flushOpen(T + results * 20_000 + 3 * 3_600_000, false);
  await store.close();
  return { dir, check, keyHash };
}

/** Row counts of every copied table in the SQLite database. */
function sqliteCounts(dir: string): Record<string, number> {
  const store = openSqliteStore(dir);
  try {
    const tables = store.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").pluck().all() as string[];
    return Object.fromEntries(tables.map((t) => [t, store.db.prepare(`SELECT count(*) FROM ${t}`).pluck().get() as number]));
  } finally {
    void store.close();
  }
}

async function pgCounts(database: string, tables: string[]): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const t of tables) out[t] = (await cluster.sql(database, `SELECT count(*)::int AS n FROM ${t}`))[0]!.n as number;
  return out;
}

test('a SQLite database is copied whole, with progress, and reads the same from PostgreSQL', { timeout: 180_000 }, async () => {
  const { dir, check, keyHash } = await sqliteWithData(400);
  const url = await cluster.createDatabase();
  const database = url.split('/').pop()!;
  const run = migrate(dir, url, '--batch', '150');
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stderr, /vigil: history: 150\/400 rows/);
  assert.match(run.stderr, /vigil: history: 400\/400 rows/);
  assert.match(run.stderr, /copy complete/);
  const report = JSON.parse(run.stdout) as { tables: Array<{ table: string; rows: number }> };
  const source = sqliteCounts(dir);
  const copied = Object.keys(source).filter((t) => (t !== 'meta' || source[t]! > 0) && !t.startsWith('cluster_'));
  assert.deepEqual(await pgCounts(database, copied), Object.fromEntries(copied.map((t) => [t, source[t]])), 'every table, every row');
  assert.equal(report.tables.find((t) => t.table === 'history')?.rows, 400);

  const pg = await openPgStore(url, { pollMs: 0 });
  try {
    assert.equal((await pg.keys.byHash(keyHash))?.id, 'key_migrate');
    assert.equal((await pg.accounts.byEmail('ops@example.com'))?.id, 'acc_migrate');
    assert.equal((await pg.statusPages.byDomain('status.example.com'))?.checkIds[0], check.id);
    assert.equal((await pg.alerts.deliveries.byId('dlv_migrate'))?.status, 'pending');
    const whole: [number, number][] = [[T, T + 400 * 20_000]];
    for (const level of ['minute', 'hour', 'day'] as const) {
      const totals = await pg.rollups.totals(check.seq, level, whole);
      assert.deepEqual([totals.total, totals.failure], [400, 40], `${level} rollups came along`);
    }
    // Sequences go on after the copied numbers: a new check gets a new seq.
    const next = await pg.checks.insert({ ...check, id: 'chk_after', url: 'https://after.example.com/' }, 'https://after.example.com/', null);
    assert.ok(next > check.seq);
  } finally {
    await pg.close();
  }

  const again = migrate(dir, url);
  assert.equal(again.status, 0, 'a finished copy run again has nothing left to do');
});

test('a copy killed mid-way resumes where its last batch committed, with no row twice', { timeout: 180_000 }, async () => {
  const { dir } = await sqliteWithData(3000);
  const url = await cluster.createDatabase();
  const database = url.split('/').pop()!;
  const child = spawn(process.execPath, [CLI, 'store', 'migrate', '--to', url, '--batch', '20'], {
    env: { ...process.env, VIGIL_CONFIG: '', VIGIL_DATA_DIR: dir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  const exited = new Promise((resolve) => child.on('close', resolve));
  await new Promise<void>((resolve, reject) => {
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
      if (/history: \d+\/3000/.test(stderr)) resolve();
    });
    void exited.then(() => reject(new Error(`migrate ended before copying history: ${stderr}`)));
  });
  child.kill('SIGKILL');
  await exited;
  const [progress] = await cluster.sql(database, "SELECT copied, done FROM migrate_progress WHERE table_name = 'history'");
  assert.equal(progress!.done, false, `killed mid-way (${progress!.copied} copied)`);
  assert.ok((progress!.copied as number) < 3000);

  const resumed = migrate(dir, url, '--batch', '500');
  assert.equal(resumed.status, 0, resumed.stderr);
  assert.match(resumed.stdout, /"resumed":true/);
  const [history] = await cluster.sql(database, 'SELECT count(*)::int AS n, count(DISTINCT id)::int AS ids FROM history');
  assert.deepEqual(history, { n: 3000, ids: 3000 });
});

test('a target holding other Vigil data is refused, and so is one copied from another source', { timeout: 180_000 }, async () => {
  const first = await sqliteWithData(10);
  const second = await sqliteWithData(10);
  const url = await cluster.createDatabase();
  assert.equal(migrate(first.dir, url).status, 0);
  const other = migrate(second.dir, url);
  assert.equal(other.status, 2, 'the wrong target is bad input');
  assert.match(other.stderr, /holds a copy from another source/);

  const used = await cluster.createDatabase();
  const pg = await openPgStore(used, { pollMs: 0 });
  await pg.accounts.insert({ id: 'acc_there', email: 'there@example.com', tier: 'free', maxChecksOverride: null, claimed: true, createdAt: T });
  await pg.close();
  const refused = migrate(first.dir, used);
  assert.equal(refused.status, 2);
  assert.match(refused.stderr, /already holds Vigil data \(table accounts has rows\)/);
  assert.equal((await cluster.sql(used.split('/').pop()!, 'SELECT count(*)::int AS n FROM checks'))[0]!.n, 0, 'nothing was copied');
});

test('a SQLite server that did not stop cleanly: its unwritten minutes are rebuilt from raw history in the target', { timeout: 180_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-migrate-crash-'));
  dirs.push(dir);
  const store = openSqliteStore(dir);
  await store.accounts.insert({ id: 'acc_crash', email: 'crash@example.com', tier: 'pro', maxChecksOverride: null, claimed: true, createdAt: T });
  const draft: Omit<Check, 'seq'> = {
    ...DEFAULT_SETTINGS, name: 'site', url: 'https://crash.example.com/', type: 'website',
    id: 'chk_crash', accountId: 'acc_crash', disabled: false, disabledReason: null, maintenance: false, maintenanceUntil: null, windowMaintenance: false, heartbeatToken: null,
    status: 'up', consecutiveFailures: 0, degraded: false, lastChecked: null, lastResponseTime: null, lastStatusCode: null,
    lastError: null, lastStatusChange: null, probesTotal: 0, probesUp: 0, ssl: null, domain: null, regions: null,
    errorAlerted: false, sslAlerts: null, createdAt: T, updatedAt: T,
  };
  const check = { ...draft, seq: await store.checks.insert(draft, draft.url, null) };
  await store.applyWrites(Array.from({ length: 30 }, (_, i) => result(check, T + i * 20_000, i % 3 !== 0)), () => assert.fail('no record fails'));
  // Killed: the open minutes never reach their rows; only the "open from" mark is on disk.
  store.db.close();
  const url = await cluster.createDatabase();
  const run = migrate(dir, url);
  assert.equal(run.status, 0, run.stderr);
  const pg = await openPgStore(url, { pollMs: 0 });
  try {
    const totals = await pg.rollups.totals(await check.seq, 'minute', [[T, T + 30 * 20_000]]);
    assert.deepEqual([totals.total, totals.failure], [30, 10], 'every result of raw history is in the minute rollups');
    assert.equal((await pg.rollups.openBuckets()).minuteFrom, null);
  } finally {
    await pg.close();
  }
});
