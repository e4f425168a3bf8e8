import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { hasRawSocketCapability } from '../../src/engine/probes/icmp-capability.js';
import { VERSION } from '../../src/version.js';
import { startReceiver } from '../helpers/fixtures/alerts-receiver.js';
import { ADMIN_KEY, freePort, LISTENING, spawnServing, stopServing, type Serving } from '../helpers/serve-process.js';

/**
 * Issue 16 item 1: `npm run build:binary` makes one file that runs Vigil with nothing else
 * installed. The binary is copied alone into an empty directory (no node_modules anywhere
 * above it) and runs there: serve, probes, heartbeats, the CLI beside it, backup.
 */

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const BINARY = join(ROOT, 'dist', `vigil-${process.platform}-${process.arch}`);
const TIMEOUT = { timeout: 300_000 };

function noNodeModulesAbove(dir: string): boolean {
  for (let d = dir; ; d = dirname(d)) {
    if (existsSync(join(d, 'node_modules'))) return false;
    if (dirname(d) === d) return true;
  }
}

async function waitUntil<T>(what: string, probe: () => Promise<T | undefined>, attempts = 300): Promise<T> {
  for (let i = 0; i < attempts; i++) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`gave up waiting for ${what}`);
}

describe('the single binary', { skip: process.platform !== 'linux' || process.arch !== 'x64' ? 'Linux x86-64 only' : false }, () => {
  let home: string;
  let exe: string;
  let target: Server;
  let targetHits = 0;
  let serving: Serving | null = null;
  // The webhook receiver's certificate is signed by the committed test CA.
  const env = () => ({ NODE_EXTRA_CA_CERTS: join(ROOT, 'test', 'helpers', 'fixtures', 'tls', 'ca.pem'), HOME: home, XDG_CACHE_HOME: join(home, 'cache'), NODE_PATH: '', NODE_OPTIONS: '', VIGIL_CONFIG: join(home, 'vigil.json') });
  const run = (args: string[]) => spawnSync(exe, args, { cwd: home, env: { ...process.env, ...env() }, encoding: 'utf8' });

  before(() => {
    execFileSync(process.execPath, [join(ROOT, 'scripts', 'build-binary.mjs')], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
    home = mkdtempSync(join(tmpdir(), 'vigil-binary-'));
    exe = join(home, 'vigil');
    copyFileSync(BINARY, exe);
    target = createServer((_req, res) => {
      targetHits++;
      res.end('ok');
    });
    return new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  });
  after(async () => {
    if (serving) await stopServing(serving);
    await new Promise<void>((resolve) => target.close(() => resolve()));
    rmSync(home, { recursive: true, force: true });
  });

  test('runs alone from an empty directory: serve, a probe, a heartbeat, the CLI beside it, backup', TIMEOUT, async () => {
    assert.ok(noNodeModulesAbove(home), `${home} must have no node_modules above it`);
    const port = await freePort();
    writeFileSync(
      join(home, 'vigil.json'),
      JSON.stringify({ server: { port }, dataDir: join(home, 'data'), plans: { pro: { minCheckIntervalMinutes: 0.05, minHeartbeatIntervalSeconds: 1 } } }),
    );
    const help = run(['help']);
    assert.match(help.stdout, /backup FILE/);
    // Node warns on stderr when the embedded main script require()s a file from disk.
    assert.equal(help.stderr, '', 'no warning before the output');
    for (const args of [['--version'], ['version']]) {
      const version = run(args);
      assert.equal(version.status, 0, version.stderr);
      assert.equal(version.stdout, `vigil ${VERSION}\n`);
      assert.equal(version.stderr, '');
    }

    serving = spawnServing(exe, ['serve'], { cwd: home, env: env() });
    const [, url] = await serving.waitFor(LISTENING);
    const key = serving.stdout().match(ADMIN_KEY)![0];
    const [hash] = readdirSync(join(home, 'cache', 'vigil'));
    assert.match(hash!, /^[0-9a-f]{16}$/, 'assets unpacked under $XDG_CACHE_HOME/vigil/<hash>');
    assert.deepEqual(
      readdirSync(join(home, 'cache', 'vigil', hash!)).sort(),
      ['better_sqlite3.node', 'checkpoint-worker.cjs', 'icmp-host.cjs', 'password-worker.cjs', 'piscina-worker.cjs', 'probe-worker.cjs', 'raw.node', `uws_linux_x64_${process.versions.modules}.node`, 'web', 'webhook-worker.cjs'],
    );

    const api = async (method: string, path: string, body?: unknown, apiKey = key) => {
      const headers: Record<string, string> = { 'x-api-key': apiKey };
      if (body !== undefined) Object.assign(headers, { 'content-type': 'application/json', 'idempotency-key': `bin-${Math.random()}` });
      const res = await fetch(url + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      return { status: res.status, body: (await res.json()) as { data: Record<string, unknown> } };
    };

    const dashboard = await fetch(`${url}/dashboard`);
    assert.equal(dashboard.status, 200, 'the dashboard travels in the binary');
    assert.match(await dashboard.text(), /<script/);

    const created = await api('POST', '/v1/public/checks', { url: `http://127.0.0.1:${(target.address() as { port: number }).port}/`, checkFrequency: 0.05 });
    assert.equal(created.status, 201);
    const probed = await waitUntil('the check to be probed', async () => {
      const check = (await api('GET', `/v1/public/checks/${String(created.body.data.id)}`)).body.data;
      return check.status === 'up' ? check : undefined;
    });
    assert.equal(probed.status, 'up');
    assert.ok(targetHits > 0, 'the probe reached the local target');

    if (hasRawSocketCapability()) {
      // ICMP runs in a helper process the probe worker forks: the binary started as that helper.
      const ping = await api('POST', '/v1/public/checks', { type: 'ping', url: '127.0.0.1', checkFrequency: 0.05 });
      assert.equal(ping.status, 201);
      await waitUntil('the ping check to be up', async () =>
        (await api('GET', `/v1/public/checks/${String(ping.body.data.id)}`)).body.data.status === 'up' ? true : undefined,
      );
    }

    const hb = await api('POST', '/v1/public/checks', { type: 'heartbeat', checkFrequency: 1 });
    assert.equal(hb.status, 201);
    const pingUrl = String((await api('GET', `/v1/public/checks/${String(hb.body.data.id)}`)).body.data.url);
    const ping = await fetch(url + new URL(pingUrl).pathname);
    assert.equal(ping.status, 200);
    await waitUntil('the heartbeat to be up', async () =>
      (await api('GET', `/v1/public/checks/${String(hb.body.data.id)}`)).body.data.status === 'up' ? true : undefined,
    );

    // Webhook deliveries run on a worker thread started from the unpacked bundle.
    const receiver = await startReceiver();
    try {
      const hook = await api('POST', '/v1/public/alerts/webhooks', { url: receiver.url('/hooks/binary'), name: 'binary' });
      assert.equal(hook.status, 201, JSON.stringify(hook.body));
      const delivered = await api('POST', `/v1/public/alerts/webhooks/${String(hook.body.data.id)}/test`);
      assert.equal(delivered.status, 200, JSON.stringify(delivered.body));
      assert.equal(receiver.received.length, 1);
    } finally {
      await receiver.close();
    }

    const cli = run(['key', 'create', '--account', 'admin@localhost', '--scopes', 'checks:read']);
    assert.equal(cli.status, 0, cli.stderr);
    const newKey = (JSON.parse(cli.stdout) as { key: string }).key;
    assert.equal((await api('GET', '/v1/public/checks', undefined, newKey)).status, 200, 'the running server takes the key made by the CLI');

    const backup = run(['backup', join(home, 'backup.db')]);
    assert.equal(backup.status, 0, backup.stderr);
    assert.ok((JSON.parse(backup.stdout) as { bytes: number }).bytes > 0);

    const second = run(['serve']);
    assert.equal(second.status, 1, 'a second server on the same data directory is refused');
    assert.match(second.stderr, new RegExp(`pid ${serving.child.pid}`));

    const { code } = await stopServing(serving);
    assert.doesNotMatch(serving.stderr(), /Warning|require\(\)/, 'serve printed no Node warning');
    serving = null;
    assert.equal(code, 0, 'SIGTERM drains and exits 0');
  });
});
