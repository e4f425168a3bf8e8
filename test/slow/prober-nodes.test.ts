import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { runCli } from '../helpers/cli.js';
import { until } from '../helpers/until.js';

/*
 * Regional prober nodes with real processes on loopback: a central `vigil serve` and
 * `vigil prober` processes, killed and restarted for real. Failover is shortened to 3 s by
 * config (production: 60 s); every wait is a bounded loop on a condition.
 */

const CLI = fileURLToPath(new URL('../../src/cli.js', import.meta.url));
const CENTRAL = 'vps-eu-1';
const EDGE = 'vps-us-1';
const FAILOVER_MS = 3_000;

interface Proc {
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
}

function run(args: string[], env: Record<string, string> = {}): Proc {
  const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, VIGIL_CONFIG: '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (out += d));
  const exited = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
  return { child, output: () => out, exited };
}

/** Polls until `probe` returns a value (not undefined), at most `tries` times 200 ms apart. */
interface Target {
  url: string;
  /** Requests answered, and how many of the next ones fail. */
  hits: number;
  failNext: number;
  close(): Promise<void>;
}

async function startTarget(): Promise<Target> {
  const server: Server = createServer((_req, res) => {
    t.hits++;
    if (t.failNext > 0) {
      t.failNext--;
      res.writeHead(500).end('broken');
    } else res.writeHead(200).end('ok');
  });
  server.keepAliveTimeout = 100;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const t: Target = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    hits: 0,
    failNext: 0,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
  return t;
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

describe('regional prober nodes (real processes)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-nodes-'));
  const centralConfig = join(dir, 'central.json');
  const nodeConfig = join(dir, 'node.json');
  const procs: Proc[] = [];
  let url = '';
  /** A second central's address on the same data directory (started once the first is killed). */
  let otherUrl = '';
  let key = '';
  let central: Proc;
  let prober: Proc;
  let token = '';
  const targets: Target[] = [];

  const api = async (method: string, path: string, body?: unknown, auth = key) => {
    const idempotency: Record<string, string> = method === 'POST' && path === '/v1/public/checks' ? { 'idempotency-key': `k-${Math.random()}` } : {};
    const send = () => fetch(`${url}${path}`, {
      method,
      headers: { 'x-api-key': auth, 'content-type': 'application/json', ...idempotency },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    // A pooled connection the server closed as idle fails once; the same request (and
    // idempotency key) is safe to send again.
    const res = await send().catch(() => send());
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  const history = async (id: string) => {
    const r = await api('GET', `/v1/public/checks/${id}/history?limit=100`);
    return r.body.data as Array<{ region: string; status: string; createdAt: string }>;
  };
  const statusOf = async (id: string) => {
    const r = await api('GET', '/v1/public/checks/status');
    return (r.body.data as Array<{ id: string; status: string; regions: Record<string, unknown> }>).find((c) => c.id === id)!;
  };
  const nodeList = () => JSON.parse(runCli(['node', 'list', '--config', centralConfig], join(dir, 'central')).stdout) as Array<Record<string, unknown>>;
  const createCheck = async (target: string, extra: Record<string, unknown>) => {
    const r = await api('POST', '/v1/public/checks', { url: target, checkFrequency: 0.05, ...extra });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    return r.body.data.id as string;
  };

  /** The node's results of the check reach history once each: as many as probes made, and no gap. */
  async function replayedOnce(id: string, probesSoFar: number): Promise<void> {
    const rows = await until('the backlog to be replayed', async () => {
      const h = (await history(id)).filter((r) => r.region === EDGE);
      return h.length >= probesSoFar ? h : undefined;
    });
    const times = rows.map((r) => r.createdAt);
    assert.equal(new Set(times).size, times.length, 'no result recorded twice');
    // Nothing lost: consecutive results are one interval apart (3 s), never two.
    const ms = times.map((t) => Date.parse(t)).sort((a, b) => a - b);
    for (let i = 1; i < ms.length; i++) assert.ok(ms[i]! - ms[i - 1]! < 5_000, `a gap between ${times[i - 1]} and ${times[i]}`);
  }

  async function startCentral(port?: number): Promise<void> {
    central = run(['serve', '--config', centralConfig], port ? { VIGIL_PORT: String(port) } : {});
    procs.push(central);
    await until('the central to listen', () => (/Vigil listening on/.test(central.output()) ? true : undefined));
    key ||= /Admin API key \(shown once, store it now\): (\S+)/.exec(central.output())![1]!;
  }
  function startProber(): void {
    // Two centrals, the second one named twice: once repeated, once in a comma-separated list.
    prober = run(['prober', '--server', url, '--server', `${otherUrl},${otherUrl}`, '--token', token, '--config', nodeConfig]);
    procs.push(prober);
  }

  before(async () => {
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    otherUrl = `http://127.0.0.1:${await freePort()}`;
    const common = { logLevel: 'info', plans: { pro: { minCheckIntervalMinutes: 0.05 } }, nodes: { failoverMs: FAILOVER_MS, pingMs: 1000, reconnectMaxMs: 1000 } };
    writeFileSync(centralConfig, JSON.stringify({
      ...common, server: { host: '127.0.0.1', port }, dataDir: join(dir, 'central'), region: CENTRAL,
      signup: { enabled: false, verifyEmailDomain: false, dailyLimit: 1 },
      rateLimits: { perKeyPerMinute: 100000, statusPerKeyPerMinute: 100000, statusPerAccountPerMinute: 100000 },
    }));
    writeFileSync(nodeConfig, JSON.stringify({ ...common, dataDir: join(dir, 'node') }));
    await startCentral();
  });

  after(async () => {
    for (const p of procs) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    for (const t of targets) await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('vigil node create prints the token once; bad input is one line and exit 2', () => {
    const bad = runCli(['node', 'create', '--region', 'Not A Region', '--config', centralConfig], join(dir, 'central'));
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /^vigil: region must be lower-case/);
    assert.equal(bad.stderr.trim().split('\n').length, 1);
    assert.equal(runCli(['node', 'create', '--config', centralConfig], join(dir, 'central')).status, 2);
    assert.equal(runCli(['node', 'create', '--region', CENTRAL, '--config', centralConfig], join(dir, 'central')).status, 2);
    assert.equal(runCli(['node', 'revoke', 'nod_missing', '--config', centralConfig], join(dir, 'central')).status, 2);
    const noServer = runCli(['prober', '--token', 'vigil_node_x'], join(dir, 'node'));
    assert.equal(noServer.status, 2);
    assert.equal(noServer.stderr, 'vigil: prober needs --server URL (or VIGIL_SERVER)\n');
    assert.equal(runCli(['prober', '--server', 'not a url', '--token', 'x'], join(dir, 'node')).status, 2);
    assert.equal(runCli(['prober', '--server', url], join(dir, 'node')).status, 2, 'no token');

    const made = runCli(['node', 'create', '--region', EDGE, '--name', 'us-east', '--config', centralConfig], join(dir, 'central'));
    assert.equal(made.status, 0, made.stderr);
    const node = JSON.parse(made.stdout) as { id: string; name: string; region: string; token: string };
    assert.deepEqual(Object.keys(node), ['id', 'name', 'region', 'token']);
    assert.match(node.token, /^vigil_node_[0-9a-f]{64}$/);
    assert.equal(node.region, EDGE);
    token = node.token;
    const listed = nodeList();
    assert.equal(listed.length, 1);
    assert.equal(listed[0]!.connected, false);
    assert.equal(JSON.stringify(listed).includes(token), false, 'the token is never shown again');
  });

  test('a wrong token is refused at the socket, and a node token opens no API', async () => {
    const status = await new Promise<number>((resolve) => {
      const ws = new WebSocket(`${url.replace('http', 'ws')}/v1/nodes/connect`, { headers: { authorization: `Bearer vigil_node_${'0'.repeat(64)}` } });
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      ws.on('open', () => resolve(101));
      ws.on('error', () => {});
    });
    assert.equal(status, 401);
    const viaApi = await api('GET', '/v1/public/checks', undefined, token);
    assert.equal(viaApi.status, 401);
    const bearer = await fetch(`${url}/v1/public/checks`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(bearer.status, 401);
  });

  test('regions: the central always online, a registered region online once its node connects', async () => {
    const unknown = await api('POST', '/v1/public/checks', { url: 'https://example.com', checkRegionOverride: 'vps-ap-9' });
    assert.equal(unknown.status, 400);
    assert.equal(unknown.body.error.message, `checkRegionOverride must be one of: ${CENTRAL}, ${EDGE}`);
    let regions = (await api('GET', '/v1/public/regions')).body.data;
    assert.deepEqual(regions, [
      { id: CENTRAL, nodes: 0, connected: 0, online: true },
      { id: EDGE, nodes: 1, connected: 0, online: false },
    ]);
    startProber();
    regions = await until('the node to connect', async () => {
      const data = (await api('GET', '/v1/public/regions')).body.data as Array<{ id: string; online: boolean }>;
      return data.find((r) => r.id === EDGE)?.online ? data : undefined;
    });
    assert.deepEqual(regions[1], { id: EDGE, nodes: 1, connected: 1, online: true });
    const listed = await until('node list to show it connected', () => (nodeList()[0]!.connected ? nodeList()[0] : undefined));
    assert.equal(typeof listed.version, 'string');
    assert.equal(typeof listed.clockOffsetMs, 'number');
  });

  test('a check pinned to the node’s region is probed by the node', async () => {
    const target = await startTarget();
    targets.push(target);
    const id = await createCheck(target.url, { checkRegionOverride: EDGE });
    const rows = await until('a result from the node', async () => {
      const h = await history(id);
      return h.some((r) => r.region === EDGE) ? h : undefined;
    });
    assert.ok(rows.every((r) => r.region === EDGE), 'the central does not probe it while the node is there');
    assert.equal((await statusOf(id)).status, 'online');
    const listed = await until('assigned checks in node list', () => ((nodeList()[0]!.assignedChecks as number) >= 1 ? nodeList()[0] : undefined));
    assert.equal(listed.assignedChecks, 1);
  });

  test('a failure the peer region does not see: regionsTotal 2, regionsDown 1, not confirmed, the check stays up', async () => {
    const target = await startTarget();
    targets.push(target);
    const id = await createCheck(target.url, { downConfirmationAttempts: 1 });
    await until('the check to be up', async () => ((await statusOf(id)).status === 'online' ? true : undefined));
    target.failNext = 1; // the central's next probe fails; the node's re-check right after succeeds
    const status = await until('the peer verdict', async () => {
      const s = await statusOf(id);
      return s.regions.regionsTotal === 2 ? s : undefined;
    });
    assert.deepEqual(status.regions, { primary: CENTRAL, peer: EDGE, regionsTotal: 2, regionsDown: 1, confirmedDown: false });
    assert.equal(status.status, 'online');
    const h = await history(id);
    assert.ok(h.some((r) => r.region === EDGE && r.status === 'up'), 'history keeps the peer’s result with its region');
    assert.ok(h.some((r) => r.region === CENTRAL && r.status === 'down'));
  });

  test('a dead target is confirmed down by both regions, whichever region is primary', async () => {
    const dead = await startTarget();
    const deadUrl = dead.url;
    await dead.close();
    const onCentral = await createCheck(deadUrl, { downConfirmationAttempts: 1 });
    const onNode = await createCheck(`${deadUrl}node`, { downConfirmationAttempts: 1, checkRegionOverride: EDGE });
    for (const [id, primary, peer] of [[onCentral, CENTRAL, EDGE], [onNode, EDGE, CENTRAL]] as const) {
      const s = await until('confirmed down', async () => {
        const st = await statusOf(id);
        return st.regions.confirmedDown ? st : undefined;
      });
      assert.equal(s.status, 'offline');
      assert.deepEqual(s.regions, { primary, peer, regionsTotal: 2, regionsDown: 2, confirmedDown: true });
    }
    await api('DELETE', `/v1/public/checks/${onCentral}`);
    await api('DELETE', `/v1/public/checks/${onNode}`);
  });

  test('a node cannot inject results for checks it was not given: dropped and counted', async () => {
    const made = JSON.parse(runCli(['node', 'create', '--region', 'vps-ap-1', '--config', centralConfig], join(dir, 'central')).stdout) as { id: string; token: string };
    const target = await startTarget();
    targets.push(target);
    const id = await createCheck(target.url, { checkRegionOverride: EDGE });
    const ws = new WebSocket(`${url.replace('http', 'ws')}/v1/nodes/connect`, { headers: { authorization: `Bearer ${made.token}` } });
    await new Promise((r) => ws.on('open', r));
    ws.send(JSON.stringify({ type: 'hello', version: 'test', epoch: 'e1' }));
    await new Promise((r) => ws.once('message', r));
    const result = { ok: false, statusCode: 500, responseTime: 1, timing: null, error: 'forged', snippet: null, ssl: null, location: null, startedAt: Date.now() };
    ws.send(JSON.stringify({ type: 'results', epoch: 'e1', items: [{ seq: 1, checkId: id, result }] }));
    const listed = await until('the rejected result to be counted', () => {
      const n = nodeList().find((x) => x.id === made.id);
      return n && (n.rejectedResults as number) > 0 ? n : undefined;
    });
    assert.equal(listed.rejectedResults, 1);
    assert.ok((await history(id)).every((r) => r.region !== 'vps-ap-1'));
    // An oversized frame closes the connection (uWS drops it: 1006 to the client, or 1009).
    const closed = new Promise<number>((r) => ws.on('close', (code) => r(code)));
    ws.send('x'.repeat(2 * 1024 * 1024));
    assert.ok([1006, 1009].includes(await closed));
    assert.equal(runCli(['node', 'revoke', made.id, '--config', centralConfig], join(dir, 'central')).status, 0);
    await api('DELETE', `/v1/public/checks/${id}`);
  });

  test('kill -9 the node: the central probes its checks after the failover, and gives them back when it returns', async () => {
    const target = await startTarget();
    targets.push(target);
    const id = await createCheck(target.url, { checkRegionOverride: EDGE });
    await until('a node result', async () => ((await history(id)).some((r) => r.region === EDGE) ? true : undefined));
    prober.child.kill('SIGKILL');
    await prober.exited;
    await until('the central to take over', async () => ((await history(id)).some((r) => r.region === CENTRAL) ? true : undefined));
    startProber();
    const back = await until('the node to take the check back', async () => {
      const h = await history(id);
      const lastCentral = h.findIndex((r) => r.region === CENTRAL);
      // Newest first: two node results newer than the central's newest.
      return lastCentral >= 2 && h[0]!.region === EDGE && h[1]!.region === EDGE ? h : undefined;
    });
    assert.ok(back.length > 0);
  });

  test('restart the central while the node probes: every result made meanwhile appears exactly once', async () => {
    const target = await startTarget();
    targets.push(target);
    const id = await createCheck(target.url, { checkRegionOverride: EDGE });
    await until('node results', async () => ((await history(id)).filter((r) => r.region === EDGE).length >= 2 ? true : undefined));
    central.child.kill('SIGTERM');
    assert.equal(await central.exited, 0);
    const hitsWhileDown = target.hits;
    await until('the node to probe on while the central is down', () => (target.hits >= hitsWhileDown + 3 ? true : undefined));
    const probesSoFar = target.hits;
    await startCentral();
    await replayedOnce(id, probesSoFar);
    assert.ok((await history(id)).every((r) => r.region === EDGE), 'the node came back before the failover');
  });

  test('kill -9 the central: the node moves to another central of the same store, its backlog recorded there exactly once', async () => {
    const target = await startTarget();
    targets.push(target);
    const id = await createCheck(target.url, { checkRegionOverride: EDGE });
    await until('node results', async () => ((await history(id)).filter((r) => r.region === EDGE).length >= 2 ? true : undefined));
    central.child.kill('SIGKILL');
    await central.exited;
    const hitsWhileDown = target.hits;
    await until('the node to probe on while no central answers', () => (target.hits >= hitsWhileDown + 3 ? true : undefined));
    // The other central: same data, another port (with PostgreSQL, another machine).
    await startCentral(Number(new URL(otherUrl).port));
    url = otherUrl;
    await until('the node on the other central', () => (/connected to the central/.test(prober.output().split('lost the central').at(-1)!) ? true : undefined));
    assert.match(prober.output(), new RegExp(`"server":"ws://127\\.0\\.0\\.1:${new URL(otherUrl).port}/v1/nodes/connect"[^\n]*connected to the central`));
    await replayedOnce(id, target.hits);
  });

  test('revoking the node disconnects it at once and for good: the prober exits, its token is refused', async () => {
    const id = (nodeList().find((n) => n.region === EDGE && !n.revoked) as { id: string }).id;
    assert.equal(runCli(['node', 'revoke', id, '--config', centralConfig], join(dir, 'central')).status, 0);
    assert.equal(await prober.exited, 1, 'the prober stops: its token is refused from now on');
    assert.match(prober.output(), /refused this node token/);
    const status = await new Promise<number>((resolve) => {
      const retry = new WebSocket(`${url.replace('http', 'ws')}/v1/nodes/connect`, { headers: { authorization: `Bearer ${token}` } });
      retry.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      retry.on('open', () => resolve(101));
      retry.on('error', () => {});
    });
    assert.equal(status, 401);
    const listed = nodeList().find((n) => n.id === id)!;
    assert.equal(listed.revoked, true);
    assert.equal(listed.connected, false);
  });
});
