import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { MIGRATIONS } from '../../src/store/migrations.js';
import { SCHEMA_VERSION } from '../../src/store/db.js';
import { openSqliteStore } from '../../src/store/sqlite/index.js';
import { runCli } from '../helpers/cli.js';
import { ADMIN_KEY, freePort, LISTENING, spawnServing, stopServing, type Serving } from '../helpers/serve-process.js';

/** Issue 16: one server per data directory, backup while serving, restore, schema versions. */

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const CLI = fileURLToPath(new URL('../../src/cli.js', import.meta.url));
const TIMEOUT = { timeout: 120_000 };

const dirs: string[] = [];
const running: Serving[] = [];
function tmp(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}
after(async () => {
  for (const s of running) await stopServing(s);
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function serve(dataDir: string): Promise<{ s: Serving; url: string; key: string | undefined }> {
  const s = spawnServing(process.execPath, [CLI, 'serve'], { cwd: ROOT, env: { VIGIL_DATA_DIR: dataDir, VIGIL_PORT: String(await freePort()) } });
  running.push(s);
  const [, url] = await s.waitFor(LISTENING);
  return { s, url: url!, key: s.stdout().match(ADMIN_KEY)?.[0] };
}

/** `vigil ...` without blocking this process (a server in it keeps answering). */
function cliAsync(args: string[], dataDir: string): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env: { ...process.env, VIGIL_DATA_DIR: dataDir, VIGIL_CONFIG: '' } }, (err, stdout, stderr) => {
      resolve({ status: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

async function api(url: string, key: string, method: string, path: string, body?: unknown) {
  const headers: Record<string, string> = { 'x-api-key': key };
  if (body !== undefined) Object.assign(headers, { 'content-type': 'application/json', 'idempotency-key': `ops-${Math.random()}` });
  const res = await fetch(url + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as { data: { id: string; url: string } } };
}

function historyCount(dbFile: string, checkId: string): number {
  const db = new Database(dbFile, { readonly: true });
  try {
    return db.prepare('SELECT count(*) FROM history WHERE check_seq = (SELECT seq FROM checks WHERE id = ?)').pluck().get(checkId) as number;
  } finally {
    db.close();
  }
}

describe('one server per data directory', () => {
  test('a second serve exits 1 naming the holder; CLI writes keep working beside the first', TIMEOUT, async () => {
    const dataDir = join(tmp('vigil-lock-'), 'data');
    const first = await serve(dataDir);
    const second = spawnServing(process.execPath, [CLI, 'serve'], { cwd: ROOT, env: { VIGIL_DATA_DIR: dataDir, VIGIL_PORT: String(await freePort()) } });
    running.push(second);
    const { code } = await second.exited;
    assert.equal(code, 1, `stderr: ${second.stderr()}`);
    assert.match(second.stderr(), new RegExp(`in use by another Vigil server \\(pid ${first.s.child.pid}\\)`));
    assert.doesNotMatch(second.stdout(), /listening/);

    const key = runCli(['key', 'create', '--account', 'admin@localhost', '--scopes', 'checks:read'], dataDir);
    assert.equal(key.status, 0, key.stderr);
    const created = JSON.parse(key.stdout) as { key: string };
    assert.equal((await api(first.url, created.key, 'GET', '/v1/public/checks')).status, 200, 'the running server accepts the new key');

    assert.equal((await stopServing(first.s)).code, 0);
    const again = await serve(dataDir);
    assert.equal(again.key, undefined, 'the lock is released on exit: a new server starts');
    await stopServing(again.s);
  });
});

describe('backup and restore', () => {
  test('backup under heartbeat load holds every ping acknowledged before it began; restore round-trips', TIMEOUT, async () => {
    const dataDir = join(tmp('vigil-backup-'), 'data');
    const out = tmp('vigil-backup-out-');
    const server = await serve(dataDir);
    const adminKey = server.key!;
    const hb = await api(server.url, adminKey, 'POST', '/v1/public/checks', { type: 'heartbeat', checkFrequency: 1 });
    assert.equal(hb.status, 201);
    const pingPath = new URL((await api(server.url, adminKey, 'GET', `/v1/public/checks/${hb.body.data.id}`)).body.data.url).pathname;

    let acked = 0;
    let stop = false;
    const load = Array.from({ length: 4 }, async () => {
      for (let i = 0; i < 100_000 && !stop; i++) {
        const res = await fetch(server.url + pingPath);
        await res.arrayBuffer();
        if (res.status === 200) acked++;
      }
    });
    // The load is running before the backup starts.
    for (let i = 0; i < 3000 && acked < 50; i++) await new Promise((r) => setTimeout(r, 10));
    assert.ok(acked >= 50, `the ping load is running (${acked} acknowledged)`);
    const ackedBefore = acked;
    const file = join(out, 'vigil-backup.db');
    const backup = await cliAsync(['backup', file], dataDir);
    const ackedDuring = acked - ackedBefore;
    stop = true;
    await Promise.all(load);
    assert.equal(backup.status, 0, backup.stderr);
    const report = JSON.parse(backup.stdout) as { file: string; bytes: number; ms: number; schemaVersion: number };
    assert.equal(report.file, file);
    assert.ok(report.bytes > 0, `bytes ${report.bytes}`);
    assert.ok(Number.isInteger(report.ms) && report.ms >= 0, `ms ${report.ms}`);
    assert.equal(report.schemaVersion, SCHEMA_VERSION);
    assert.ok(historyCount(file, hb.body.data.id) >= ackedBefore, `the backup holds all ${ackedBefore} pings acknowledged before it began`);
    assert.ok(ackedDuring > 0, 'pings were acknowledged while the backup ran: it does not stop the server');
    assert.equal((await cliAsync(['backup', file], dataDir)).status, 2, 'an existing file is not overwritten');

    // A check made after the backup; restore is refused while the server runs.
    const later = await api(server.url, adminKey, 'POST', '/v1/public/checks', { url: 'https://after-backup.example.com', name: 'after' });
    assert.equal(later.status, 201);
    const refused = await cliAsync(['restore', file], dataDir);
    assert.equal(refused.status, 1);
    assert.match(refused.stderr, new RegExp(`pid ${server.s.child.pid}`));
    assert.equal((await stopServing(server.s)).code, 0);

    const restored = await cliAsync(['restore', file], dataDir);
    assert.equal(restored.status, 0, restored.stderr);
    const { replaced } = JSON.parse(restored.stdout) as { replaced: string };
    assert.ok(existsSync(replaced), 'the replaced database is kept beside it');
    const store = openSqliteStore(dataDir);
    try {
      assert.ok((await store.checks.byId(hb.body.data.id)), 'the backed-up check is back');
      assert.equal((await store.checks.byId(later.body.data.id)), null, 'the check made after the backup is gone');
    } finally {
      await store.close();
    }
    const back = await serve(dataDir);
    assert.equal((await api(back.url, adminKey, 'GET', `/v1/public/checks/${hb.body.data.id}`)).status, 200, 'the admin key of the backup works');
    await stopServing(back.s);
  });

  test('restore refuses a file that is not a Vigil database, and changes nothing', TIMEOUT, async () => {
    const dir = tmp('vigil-restore-bad-');
    const dataDir = join(dir, 'data');
    assert.equal(runCli(['account', 'create', '--email', 'keep@example.com'], dataDir).status, 0);
    const text = join(dir, 'notes.txt');
    writeFileSync(text, 'not a database at all, just some text that is long enough to be read as a header by SQLite\n'.repeat(20));
    const other = join(dir, 'other.db');
    new Database(other).exec('CREATE TABLE t (x)');
    for (const file of [text, other, join(dir, 'missing.db')]) {
      const r = runCli(['restore', file], dataDir);
      assert.equal(r.status, 2, `${file}: ${r.stderr}`);
      assert.match(r.stderr, /not a SQLite database|not a Vigil database|does not exist/);
    }
    assert.deepEqual(readdirSync(dataDir).filter((f) => f.includes('replaced')), []);
    const store = openSqliteStore(dataDir);
    try {
      assert.ok((await store.accounts.byEmail('keep@example.com')));
    } finally {
      await store.close();
    }
  });
});

describe('schema versions', () => {
  test('a database from a newer Vigil is refused with a clear message, by serve, the CLI and restore', TIMEOUT, async () => {
    const dir = tmp('vigil-newer-');
    const dataDir = join(dir, 'data');
    assert.equal(runCli(['account', 'create', '--email', 'n@example.com'], dataDir).status, 0);
    const db = new Database(join(dataDir, 'vigil.db'));
    db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    db.close();
    const s = spawnServing(process.execPath, [CLI, 'serve'], { cwd: ROOT, env: { VIGIL_DATA_DIR: dataDir, VIGIL_PORT: String(await freePort()) } });
    running.push(s);
    assert.equal((await s.exited).code, 1);
    const message = `schema version ${SCHEMA_VERSION + 1}, newer than this Vigil knows (${SCHEMA_VERSION})`;
    assert.ok(s.stderr().includes(message), s.stderr());
    const cli = runCli(['account', 'create', '--email', 'm@example.com'], dataDir);
    assert.equal(cli.status, 1);
    assert.ok(cli.stderr.includes(message), cli.stderr);
    const r = runCli(['restore', join(dataDir, 'vigil.db')], join(dir, 'elsewhere'));
    assert.equal(r.status, 2);
    assert.match(r.stderr, /newer than this Vigil knows/);
  });

  test('a start that migrates to a newer schema first copies the old database aside', async () => {
    const dataDir = tmp('vigil-migrate-');
    const older = SCHEMA_VERSION - 1;
    const db = new Database(join(dataDir, 'vigil.db'));
    for (const m of [...MIGRATIONS].sort((a, b) => a.version - b.version)) {
      if (m.version > older) continue;
      db.exec(m.sql);
    }
    db.pragma(`user_version = ${older}`);
    db.prepare("INSERT INTO accounts (id, email, tier, created_at) VALUES ('acc_old', 'old@example.com', 'free', 0)").run();
    db.close();
    await openSqliteStore(dataDir).close();
    const copies = readdirSync(dataDir).filter((f) => f.startsWith(`vigil.db.v${older}-before-v${SCHEMA_VERSION}-`));
    assert.equal(copies.length, 1, readdirSync(dataDir).join(', '));
    const copy = new Database(join(dataDir, copies[0]!), { readonly: true });
    try {
      assert.equal(copy.pragma('user_version', { simple: true }), older);
      assert.equal(copy.prepare("SELECT email FROM accounts WHERE id = 'acc_old'").pluck().get(), 'old@example.com');
    } finally {
      copy.close();
    }
    await openSqliteStore(dataDir).close();
    assert.equal(readdirSync(dataDir).filter((f) => f.includes('-before-')).length, 1, 'no copy when nothing migrates');
  });
});

describe('startup errors say what to do', () => {
  test('a busy address is named, with what to change', TIMEOUT, async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    const dataDir = join(tmp('vigil-busy-'), 'data');
    try {
      const s = spawnServing(process.execPath, [CLI, 'serve'], { cwd: ROOT, env: { VIGIL_DATA_DIR: dataDir, VIGIL_PORT: String(port) } });
      running.push(s);
      assert.equal((await s.exited).code, 1);
      assert.match(s.stderr(), new RegExp(`^vigil: cannot listen on 127\\.0\\.0\\.1:${port}: the address is in use by another process; .*server\\.port`, 'm'));
      assert.doesNotMatch(s.stderr(), /unexpected error/);
      // A fresh data directory: nothing left behind, not even the directory (issue 35).
      assert.equal(existsSync(dataDir), false, existsSync(dataDir) ? readdirSync(dataDir).join(', ') : '');
      // One given empty stays, empty.
      mkdirSync(dataDir);
      const again = spawnServing(process.execPath, [CLI, 'serve'], { cwd: ROOT, env: { VIGIL_DATA_DIR: dataDir, VIGIL_PORT: String(port) } });
      running.push(again);
      assert.equal((await again.exited).code, 1);
      assert.deepEqual(readdirSync(dataDir), []);
      // One that holds anything is left as a clean stop leaves it: no pid file, no lock journal, the database closed.
      writeFileSync(join(dataDir, 'notes.txt'), 'mine');
      const held = spawnServing(process.execPath, [CLI, 'serve'], { cwd: ROOT, env: { VIGIL_DATA_DIR: dataDir, VIGIL_PORT: String(port) } });
      running.push(held);
      assert.equal((await held.exited).code, 1);
      assert.deepEqual(readdirSync(dataDir).sort(), ['notes.txt', 'vigil.db', 'vigil.lock']);
      // The lock is free: the CLI, and a server on a free port, may use the directory at once.
      const next = spawnServing(process.execPath, [CLI, 'serve'], { cwd: ROOT, env: { VIGIL_DATA_DIR: dataDir, VIGIL_PORT: String(await freePort()) } });
      running.push(next);
      await next.waitFor(LISTENING);
      assert.equal((await stopServing(next)).code, 0);
    } finally {
      await new Promise<void>((resolve) => blocker.close(() => resolve()));
    }
  });

  test('a data directory that cannot be written is named, with what to change', TIMEOUT, async () => {
    const file = join(tmp('vigil-nodir-'), 'a-file');
    writeFileSync(file, '');
    const s = spawnServing(process.execPath, [CLI, 'serve'], { cwd: ROOT, env: { VIGIL_DATA_DIR: join(file, 'data'), VIGIL_PORT: String(await freePort()) } });
    running.push(s);
    assert.equal((await s.exited).code, 1);
    assert.match(s.stderr(), /^vigil: the data directory .*a-file\/data is not writable \(ENOTDIR\); .*VIGIL_DATA_DIR/m);
  });

  test('without CAP_NET_RAW: a warning at start, ping checks fail with that reason, everything else runs', {
    ...TIMEOUT,
    skip: existsSync('/usr/bin/setpriv') && process.getuid?.() === 0 ? false : 'needs root and setpriv to start a server without CAP_NET_RAW',
  }, async () => {
    const dir = tmp('vigil-noraw-');
    const config = join(dir, 'config.json');
    writeFileSync(config, JSON.stringify({ plans: { pro: { minCheckIntervalMinutes: 0.05 } } }));
    const target = createServer((socket) => socket.end());
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    const s = spawnServing('/usr/bin/setpriv', ['--bounding-set', '-net_raw', '--inh-caps', '-net_raw', process.execPath, CLI, 'serve', '--config', config], {
      cwd: ROOT,
      env: { VIGIL_DATA_DIR: join(dir, 'data'), VIGIL_PORT: String(await freePort()) },
    });
    running.push(s);
    try {
      const [, url] = await s.waitFor(LISTENING);
      const key = s.stdout().match(ADMIN_KEY)![0];
      assert.match(s.stdout(), /ping checks will fail: ICMP needs raw sockets, and this process lacks CAP_NET_RAW/);
      const ping = await api(url!, key, 'POST', '/v1/public/checks', { type: 'ping', url: '127.0.0.1', checkFrequency: 0.05 });
      const tcp = await api(url!, key, 'POST', '/v1/public/checks', { type: 'tcp', url: `tcp://127.0.0.1:${(target.address() as { port: number }).port}`, checkFrequency: 0.05 });
      assert.equal(ping.status, 201);
      assert.equal(tcp.status, 201);
      const state = async (id: string) => (await api(url!, key, 'GET', `/v1/public/checks/${id}`)).body.data as unknown as { status: string; lastError: string | null };
      let pinged = await state(ping.body.data.id);
      for (let i = 0; i < 600 && pinged.status !== 'down'; i++) {
        await new Promise((r) => setTimeout(r, 100));
        pinged = await state(ping.body.data.id);
      }
      assert.equal(pinged.status, 'down');
      assert.match(String(pinged.lastError), /CAP_NET_RAW/);
      let tcpState = await state(tcp.body.data.id);
      for (let i = 0; i < 600 && tcpState.status !== 'up'; i++) {
        await new Promise((r) => setTimeout(r, 100));
        tcpState = await state(tcp.body.data.id);
      }
      assert.equal(tcpState.status, 'up', 'other checks run');
    } finally {
      await stopServing(s);
      await new Promise<void>((resolve) => target.close(() => resolve()));
    }
  });
});
