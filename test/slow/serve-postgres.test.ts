import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startPostgres, type PgCluster } from '../helpers/postgres.js';
import { ADMIN_KEY, freePort, LISTENING, spawnServing, stopServing, type Serving } from '../helpers/serve-process.js';
import { send } from '../helpers/server.js';
import { until } from '../helpers/until.js';

/**
 * `vigil serve` on PostgreSQL (issue 26): a real server process on a fresh database of the
 * test's own cluster probes a local target and records it, takes heartbeat pings, and after a
 * restart finds everything where it was and goes on. Every wait is a bounded loop on a condition.
 */

const CLI = fileURLToPath(new URL('../../src/cli.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'vigil-serve-pg-'));
let cluster: PgCluster;
let target: Server;
let targetPort = 0;
let hits = 0;
const running: Serving[] = [];

before(async () => {
  cluster = await startPostgres();
  target = createServer((_req, res) => {
    hits++;
    res.writeHead(200).end('ok');
  });
  target.keepAliveTimeout = 100;
  await new Promise<void>((r) => target.listen(0, '127.0.0.1', () => r()));
  targetPort = (target.address() as AddressInfo).port;
});
after(async () => {
  for (const s of running) if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL');
  await new Promise<void>((r) => target.close(() => r()));
  await cluster.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('vigil serve on PostgreSQL: probes, records, takes pings, and keeps it all across a restart', { timeout: 180_000 }, async () => {
  const url = await cluster.createDatabase();
  const database = new URL(url).pathname.slice(1);
  const port = await freePort();
  const configFile = join(dir, 'config.json');
  writeFileSync(configFile, JSON.stringify({
    server: { host: '127.0.0.1', port },
    dataDir: join(dir, 'data'),
    store: { url },
    instance: { name: 'central-pg' },
    logLevel: 'info',
    plans: { pro: { minCheckIntervalMinutes: 0.05, minHeartbeatIntervalSeconds: 1 } },
    rdap: { bootstrapUrl: null },
  }));
  const start = async () => {
    const s = spawnServing(process.execPath, [CLI, 'serve', '--config', configFile]);
    running.push(s);
    return { serving: s, base: (await s.waitFor(LISTENING))[1]! };
  };

  let { serving, base } = await start();
  const key = ADMIN_KEY.exec(serving.stdout())?.[0];
  assert.ok(key, `the first start prints the admin key:\n${serving.stdout()}`);
  const api = (method: string, path: string, body?: unknown) => send(base, key, method, path, { body });

  const created = await api('POST', '/v1/public/checks', { url: `http://127.0.0.1:${targetPort}/`, name: 'Local target', checkFrequency: 0.05 });
  assert.equal(created.status, 201, created.text);
  const id = created.body.data.id as string;
  const beat = await api('POST', '/v1/public/checks', { type: 'heartbeat', name: 'nightly', checkFrequency: 5, gracePeriod: 30 });
  assert.equal(beat.status, 201, beat.text);
  const beatId = beat.body.data.id as string;
  const pingUrl = (await api('GET', `/v1/public/checks/${beatId}`)).body.data.url as string;
  assert.match(pingUrl, /\/heartbeat\/[0-9a-f]{64}$/);

  const historyOf = async (checkId: string) => (await api('GET', `/v1/public/checks/${checkId}/history?limit=100`)).body.data as Array<{ type: string; status: string }>;
  await until('the check to be probed up and recorded', async () => {
    const check = (await api('GET', `/v1/public/checks/${id}`)).body.data;
    return check.status === 'up' && (await historyOf(id)).length >= 2 ? true : undefined;
  });
  assert.ok(hits >= 2, 'the target was really probed');
  const ping = await fetch(`${base}${new URL(pingUrl).pathname}`);
  assert.equal(ping.status, 200, await ping.text());
  await until('the ping to be recorded', async () => ((await historyOf(beatId)).some((e) => e.type === 'ping') ? true : undefined));
  assert.equal((await api('GET', `/v1/public/checks/${beatId}`)).body.data.status, 'up');

  // What was recorded is in PostgreSQL, not in the data directory.
  const [rows] = await cluster.sql<{ n: number }>(database, 'SELECT count(*)::int AS n FROM history');
  assert.ok(rows!.n >= 3, `history rows in PostgreSQL: ${rows!.n}`);
  const [central] = await cluster.sql<{ name: string }>(database, 'SELECT name FROM cluster_instances');
  assert.equal(central?.name, 'central-pg', 'the served central joined the cluster tables');

  const before = (await historyOf(id)).length;
  assert.equal((await stopServing(serving)).code, 0, serving.stderr());
  assert.doesNotMatch(serving.stdout(), /"level":(50|60)/, 'nothing went wrong on the way');

  ({ serving, base } = await start());
  assert.doesNotMatch(serving.stdout(), ADMIN_KEY, 'a restart creates no second admin');
  const list = (await api('GET', '/v1/public/checks')).body.data as Array<{ id: string }>;
  assert.deepEqual(list.map((c) => c.id).sort(), [id, beatId].sort());
  assert.equal((await api('GET', `/v1/public/checks/${beatId}`)).body.data.status, 'up', 'the heartbeat kept its state');
  const history = await historyOf(id);
  assert.ok(history.length >= before, 'the history survived the restart');
  const hitsAtRestart = hits;
  await until('the check to be probed again after the restart', async () => ((await historyOf(id)).length > before && hits > hitsAtRestart ? true : undefined));
  const again = await fetch(`${base}${new URL(pingUrl).pathname}`);
  assert.equal(again.status, 200);
  await until('the second ping to be recorded', async () => ((await historyOf(beatId)).filter((e) => e.type === 'ping').length >= 2 ? true : undefined));
  assert.equal((await stopServing(serving)).code, 0, serving.stderr());
  assert.doesNotMatch(serving.stdout(), /"level":(50|60)/, 'nothing went wrong on the way');
});

test('vigil serve whose PostgreSQL goes away answers 503 in the error shape, /readyz too, and serves again once it is back', { timeout: 180_000 }, async () => {
  const own = await startPostgres();
  try {
    const url = await own.createDatabase();
    const port = await freePort();
    // A lease far longer than the test: every 503 here comes from the database being gone, not from a lapsed lease.
    const configFile = join(dir, 'gone.json');
    writeFileSync(configFile, JSON.stringify({
      server: { host: '127.0.0.1', port }, dataDir: join(dir, 'gone'), store: { url }, instance: { name: 'central-gone' },
      cluster: { leaseMs: 600_000 }, rdap: { bootstrapUrl: null }, rateLimits: { perKeyPerMinute: 100_000 },
    }));
    const serving = spawnServing(process.execPath, [CLI, 'serve', '--config', configFile]);
    running.push(serving);
    const base = (await serving.waitFor(LISTENING))[1]!;
    const key = ADMIN_KEY.exec(serving.stdout())![0];
    // Every request gets an answer within the connect timeout (10 s) and a margin: none hangs.
    let n = 0;
    const ask = async (path: string, body?: unknown) => {
      const res = await fetch(`${base}${path}`, {
        method: body === undefined ? 'GET' : 'POST', body: body === undefined ? undefined : JSON.stringify(body),
        headers: { 'x-api-key': key, 'content-type': 'application/json', 'idempotency-key': `gone-${++n}` }, signal: AbortSignal.timeout(20_000),
      });
      return { status: res.status, body: (await res.json()) as { error?: { code: number; message: string }; status?: string; checks?: Record<string, string> } };
    };
    const created = await ask('/v1/public/checks', { type: 'heartbeat', name: 'nightly', checkFrequency: 5 });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    // What reads the database: a check's history, and a new check.
    const history = `/v1/public/checks/${(created.body as unknown as { data: { id: string } }).data.id}/history`;
    assert.equal((await ask(history)).status, 200);
    await until('the central to be ready', async () => ((await ask('/readyz')).status === 200 ? true : undefined));

    await own.halt();
    // 503 at once (what it keeps in memory, such as the list of checks, it may still show), never a 500.
    const checks = await ask(history);
    assert.equal(checks.status, 503, JSON.stringify(checks.body));
    assert.equal(checks.body.error?.code, 503, JSON.stringify(checks.body));
    assert.match(checks.body.error!.message, /database/);
    const ready = await ask('/readyz');
    assert.equal(ready.status, 503);
    assert.equal(ready.body.status, 'not_ready');
    assert.match(ready.body.checks?.store ?? '', /^not writable/);
    assert.equal((await ask('/v1/public/checks', { type: 'heartbeat', name: 'weekly', checkFrequency: 5 })).status, 503, 'a write too');
    for (let i = 0; i < 3; i++) assert.equal((await ask(history)).status, 503, 'and it keeps answering 503');
    assert.equal(serving.child.exitCode, null, `serve is still running:\n${serving.stderr()}`);

    // The database back: the same central serves again without a restart.
    await own.resume();
    await until('the central to be ready again', async () => ((await ask('/readyz')).status === 200 ? true : undefined), 300);
    assert.equal((await ask(history)).status, 200);
    assert.equal((await ask('/v1/public/checks', { type: 'heartbeat', name: 'monthly', checkFrequency: 5 })).status, 201);
    const stopped = await stopServing(serving);
    assert.deepEqual(stopped, { code: 0, signal: null }, `it stops by itself on SIGTERM:\n${serving.stderr()}`);
  } finally {
    await own.stop();
  }
});
