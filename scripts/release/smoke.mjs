// Runs a built binary as a user would, on this machine or inside a Debian root with chroot:
// `--version`, `serve`, a check created through the API against a local target and seen
// probed (up), `backup` beside the running server, then SIGTERM and exit 0.
// Usage: node scripts/release/smoke.mjs BINARY [ROOT]   (prints a JSON report; exit 1 on failure)
import { spawn, spawnSync } from 'node:child_process';
import { chownSync, copyFileSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chrootCommand, glibcOf } from './debian-root.mjs';

const LISTENING = /Vigil listening on (http:\/\/\S+?)["\s]/;
const ADMIN_KEY = /vigil_live_[0-9a-f]{64}/;

function freePort() {
  return new Promise((done) => {
    const s = createNetServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => done(port));
    });
  });
}

async function until(what, probe, { attempts = 600, every = 100 } = {}) {
  for (let i = 0; i < attempts; i++) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, every));
  }
  throw new Error(`gave up waiting for ${what}`);
}

/**
 * Runs `binary` copied into a new directory, on this machine or in the Debian root `root`; or,
 * with `installed` (a path inside `root`, as in an image), that binary as it is, with `env` and
 * as `user` (uid:gid). Returns { version, glibc, serveMs, listening, checkStatus, targetHits,
 * backupBytes, healthcheck, exitCode } or throws with what went wrong.
 */
export async function smoke(binary, root = null, { installed = null, env: extra = {}, user = null } = {}) {
  const inside = mkdtempSync(join(root ? join(root, 'tmp') : tmpdir(), 'vigil-smoke-'));
  const home = root ? inside.slice(root.length) : inside;
  if (user) chownSync(inside, ...user.split(':').map(Number));
  const exe = installed ?? join(home, 'vigil');
  if (!installed) copyFileSync(binary, join(inside, 'vigil'));
  const env = { HOME: home, XDG_CACHE_HOME: join(home, 'cache'), VIGIL_CONFIG: join(home, 'vigil.json'), ...extra };
  const command = (args) => (root ? chrootCommand(root, [exe, ...args], { env, user }) : [exe, args]);
  const options = { cwd: root ? undefined : home, env: root ? process.env : { ...process.env, ...env } };
  const run = (args) => {
    const [cmd, argv] = command(args);
    const r = spawnSync(cmd, argv, { ...options, encoding: 'utf8', timeout: 120_000 });
    if (r.status !== 0) throw new Error(`vigil ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
    return r.stdout;
  };
  let hits = 0;
  const target = createHttpServer((_req, res) => {
    hits++;
    res.end('ok');
  });
  await new Promise((done) => target.listen(0, '127.0.0.1', done));
  let server = null;
  try {
    const port = await freePort();
    if (env.VIGIL_PORT) env.VIGIL_PORT = String(port);
    writeFileSync(
      join(inside, 'vigil.json'),
      JSON.stringify({ server: { port }, dataDir: env.VIGIL_DATA_DIR ?? join(home, 'data'), plans: { pro: { minCheckIntervalMinutes: 0.05, minHeartbeatIntervalSeconds: 1 } } }),
    );
    const version = run(['--version']).trim();
    const started = performance.now();
    const [cmd, argv] = command(['serve']);
    server = spawn(cmd, argv, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    server.stdout.setEncoding('utf8').on('data', (d) => (out += d));
    server.stderr.setEncoding('utf8').on('data', (d) => (err += d));
    const exited = new Promise((done) => server.on('close', (code) => done(code)));
    let gone = false;
    void exited.then(() => (gone = true));
    const listening = await until('serve to listen', async () => {
      if (gone) throw new Error(`serve exited: ${err || out}`);
      return out.match(LISTENING)?.[1];
    }, { attempts: 1200 });
    const url = listening.replace('0.0.0.0', '127.0.0.1');
    const serveMs = Math.round(performance.now() - started);
    const key = out.match(ADMIN_KEY)?.[0];
    if (!key) throw new Error('the first start printed no admin key');
    const api = async (method, path, body) => {
      const headers = { 'x-api-key': key };
      if (body) Object.assign(headers, { 'content-type': 'application/json', 'idempotency-key': `smoke-${Math.random()}` });
      const res = await fetch(url + path, { method, headers, body: body && JSON.stringify(body) });
      return { status: res.status, body: await res.json() };
    };
    const created = await api('POST', '/v1/public/checks', { url: `http://127.0.0.1:${target.address().port}/`, checkFrequency: 0.05 });
    if (created.status !== 201) throw new Error(`creating a check: ${created.status} ${JSON.stringify(created.body)}`);
    const checkStatus = await until('the check to be probed', async () => {
      const { status } = (await api('GET', `/v1/public/checks/${created.body.data.id}`)).body.data;
      return status === 'up' ? status : undefined;
    }, { attempts: 1200 });
    const backup = JSON.parse(run(['backup', join(home, 'backup.db')]));
    const healthcheck = run(['healthcheck', `${url}/readyz`]).trim();
    server.kill('SIGTERM');
    const exitCode = await exited;
    server = null;
    if (exitCode !== 0) throw new Error(`serve exited ${exitCode} on SIGTERM: ${err}`);
    return { binary, root, glibc: installed ? null : root ? glibcOf(root) : hostGlibc(), version, serveMs, listening, checkStatus, targetHits: hits, backupBytes: backup.bytes, healthcheck, exitCode };
  } finally {
    if (server) {
      server.kill('SIGKILL');
    }
    target.close();
    rmSync(inside, { recursive: true, force: true });
  }
}

function hostGlibc() {
  return spawnSync('ldd', ['--version'], { encoding: 'utf8' }).stdout.split('\n')[0].match(/(\d+\.\d+)\s*$/)[1];
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [binary, root] = process.argv.slice(2);
  if (!binary) {
    console.error('usage: node scripts/release/smoke.mjs BINARY [ROOT]');
    process.exit(2);
  }
  statSync(binary);
  try {
    console.log(JSON.stringify(await smoke(resolve(binary), root ? resolve(root) : null)));
  } catch (err) {
    console.error(`smoke: ${err.message}`);
    process.exit(1);
  }
}
