import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCli } from '../helpers/cli.js';
import { freePort, LISTENING, spawnServing, stopServing } from '../helpers/serve-process.js';
import { VERSION } from '../../src/version.js';
import type { InstanceView } from '../../src/cluster/instances.js';

/**
 * `vigil instances` (issue 26 item 3) beside a real `vigil serve` on SQLite: the one central
 * there is, named by VIGIL_INSTANCE or `<hostname>:<port>`, live while it runs and not once it
 * has stopped; /metrics carries its owned checks and lease renewals.
 */

const CLI = fileURLToPath(new URL('../../src/cli.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'vigil-instances-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const instances = (dataDir: string) => {
  const r = runCli(['instances'], dataDir);
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as InstanceView[];
};

test('vigil instances: the running central, live, with its name, times, checks and version; not live once stopped', { timeout: 60_000 }, async () => {
  const dataDir = join(dir, 'named');
  assert.deepEqual(instances(dataDir), [], 'no central has run on a new data directory');
  const port = await freePort();
  const serving = spawnServing(process.execPath, [CLI, 'serve'], { env: { VIGIL_DATA_DIR: dataDir, VIGIL_PORT: String(port), VIGIL_INSTANCE: 'central-a' } });
  try {
    const base = (await serving.waitFor(LISTENING))[1]!;
    const key = /Admin API key \(shown once, store it now\): (\S+)/.exec(serving.stdout())![1]!;
    const created = await fetch(`${base}/v1/public/checks`, {
      method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json', 'idempotency-key': 'instances-1' },
      body: JSON.stringify({ type: 'heartbeat', name: 'nightly', checkFrequency: 5 }),
    });
    assert.equal(created.status, 201, await created.clone().text());
    // The row records the checks owned at the latest renewal (every 4 s by default).
    let listed = instances(dataDir);
    for (let i = 0; i < 100 && listed[0]?.checks !== 1; i++) {
      await new Promise((r) => setTimeout(r, 100));
      listed = instances(dataDir);
    }
    assert.equal(listed.length, 1);
    const [a] = listed;
    assert.deepEqual(Object.keys(a!), ['name', 'startedAt', 'lastSeenAt', 'live', 'checks', 'version']);
    assert.deepEqual({ name: a!.name, live: a!.live, checks: a!.checks, version: a!.version }, { name: 'central-a', live: true, checks: 1, version: VERSION });
    assert.ok(Date.parse(a!.startedAt) <= Date.parse(a!.lastSeenAt));

    const metrics = await (await fetch(`${base}/metrics`, { headers: { 'x-api-key': key } })).text();
    assert.match(metrics, /^vigil_cluster_owned_checks\{instance="central-a"\} 1$/m);
    assert.match(metrics, /^vigil_cluster_lease_renewals_total\{instance="central-a"\} [1-9]\d*$/m);
  } finally {
    assert.equal((await stopServing(serving)).code, 0);
  }
  const [stopped] = instances(dataDir);
  assert.equal(stopped!.live, false, 'a central that stopped is no longer live');
  assert.equal(stopped!.checks, 0);
});

test('instance.name defaults to <hostname>:<port>', { timeout: 60_000 }, async () => {
  const dataDir = join(dir, 'default');
  const port = await freePort();
  const serving = spawnServing(process.execPath, [CLI, 'serve'], { env: { VIGIL_DATA_DIR: dataDir, VIGIL_PORT: String(port) } });
  try {
    await serving.waitFor(LISTENING);
    assert.deepEqual(instances(dataDir).map((i) => [i.name, i.live]), [[`${hostname()}:${port}`, true]]);
  } finally {
    await stopServing(serving);
  }
});
