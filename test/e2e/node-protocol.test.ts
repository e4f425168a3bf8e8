import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { startServer, type TestServer } from '../helpers/server.js';
import { NodeRegistry } from '../../src/nodes/node-registry.js';
import type { CentralMessage } from '../../src/nodes/protocol.js';
import { failedResult } from '../../src/engine/dispatcher.js';
import type { ProbeResult } from '../../src/domain/probe-types.js';

/*
 * The node protocol spoken by hand against a real server: a test plays the node, so it can
 * skew its clock, replay, change epoch and send what a real prober never would.
 */

type Of<T extends CentralMessage['type']> = Extract<CentralMessage, { type: T }>;

class FakeNode {
  readonly ws: WebSocket;
  private readonly inbox: CentralMessage[] = [];
  private wake: (() => void) | null = null;
  readonly closed: Promise<number>;
  /** Added to every clock reading this node reports. */
  skewMs = 0;

  constructor(url: string, token: string) {
    this.ws = new WebSocket(`${url.replace('http', 'ws')}/v1/nodes/connect`, { headers: { authorization: `Bearer ${token}` } });
    this.ws.on('message', (data) => {
      const m = JSON.parse(data.toString()) as CentralMessage;
      if (m.type === 'ping') {
        const now = Date.now() + this.skewMs;
        this.send({ type: 'pong', t0: m.t0, t1: now, t2: now, outboxDepth: 0, dropped: 0, probesPerSecond: 0 });
        return;
      }
      this.inbox.push(m);
      this.wake?.();
    });
    this.closed = new Promise((r) => this.ws.on('close', (code) => r(code)));
  }

  opened(): Promise<void> {
    return new Promise((r) => this.ws.once('open', () => r()));
  }

  send(m: unknown): void {
    this.ws.send(JSON.stringify(m));
  }

  /** The next message of this type (earlier ones of other types are skipped), within 100 waits. */
  async next<T extends CentralMessage['type']>(type: T, where: (m: Of<T>) => boolean = () => true): Promise<Of<T>> {
    for (let round = 0; round < 100; round++) {
      const i = this.inbox.findIndex((m) => m.type === type && where(m as Of<T>));
      if (i >= 0) return this.inbox.splice(i, 1)[0] as Of<T>;
      await new Promise<void>((r) => {
        this.wake = r;
        setTimeout(r, 100);
      });
    }
    throw new Error(`no ${type} message`);
  }
}

const ok = (startedAt: number): ProbeResult => ({ ...failedResult(startedAt, ''), ok: true, error: null, statusCode: 200, responseTime: 5 });
const down = (startedAt: number): ProbeResult => failedResult(startedAt, 'Connection refused');

/** A node of its own region, connected and welcomed, and a check of that region assigned to it. */
interface Placed {
  node: FakeNode;
  nodeId: string;
  token: string;
  region: string;
  checkId: string;
}

/*
 * Each test places its own node and check (a region of its own), so any test runs alone
 * (`--test-name-pattern`) or in any order.
 */
describe('node protocol (a hand-played node against a real server)', () => {
  let server: TestServer;
  let registry: NodeRegistry;
  let regions = 0;
  const nodes: FakeNode[] = [];

  before(async () => {
    server = await startServer({ region: 'vps-eu-1', nodes: { pingMs: 200, failoverMs: 600_000 } });
    registry = new NodeRegistry(server.app.store.nodes, 'vps-eu-1', server.app.clock);
  });
  after(async () => {
    for (const n of nodes) n.ws.close();
    await server.stop();
  });

  const connect = async (token: string, skewMs = 0): Promise<FakeNode> => {
    const node = new FakeNode(server.url, token);
    nodes.push(node);
    node.skewMs = skewMs;
    await node.opened();
    return node;
  };

  /** Registers a node in a new region, creates a check there, connects and says hello. */
  const place = async (opts: { skewMs?: number; epoch?: string } = {}): Promise<Placed> => {
    const region = `vps-t${++regions}`;
    const token = (await registry.create({ region })).token;
    const made = await server.request('POST', '/v1/public/checks', {
      body: { url: `http://127.0.0.1:9/${region}`, checkFrequency: 0.5, checkRegionOverride: region, downConfirmationAttempts: 1 },
    });
    assert.equal(made.status, 201);
    const node = await connect(token, opts.skewMs);
    node.send({ type: 'hello', version: 'test', epoch: opts.epoch ?? 'epoch-1' });
    const welcome = await node.next('welcome');
    await node.next('assign', (m) => m.reset);
    return { node, nodeId: welcome.nodeId, token, region, checkId: made.body.data.id };
  };

  /** Sends one result and waits for its acknowledgement. */
  const report = async (p: Placed, seq: number, result: ProbeResult, epoch = 'epoch-1'): Promise<void> => {
    p.node.send({ type: 'results', epoch, items: [{ seq, checkId: p.checkId, result }] });
    await p.node.next('ack', (m) => m.seq === seq);
  };

  const history = async (checkId: string) =>
    (await server.request('GET', `/v1/public/checks/${checkId}/history?limit=100`)).body.data as Array<{ region: string; createdAt: string; status: string }>;
  const status = async (checkId: string) => (await server.request('GET', `/v1/public/checks/${checkId}`)).body.data.status as string;

  test('hello first: anything else closes the connection', async () => {
    const rude = await connect((await registry.create({ region: `vps-t${++regions}` })).token);
    rude.send({ type: 'results', epoch: 'e', items: [] });
    assert.equal(await rude.closed, 1008);
  });

  test('welcome, then the region’s checks; results are recorded under the node’s region with corrected times and acknowledged', async () => {
    const region = `vps-t${++regions}`;
    const token = (await registry.create({ region })).token;
    const made = await server.request('POST', '/v1/public/checks', {
      body: { url: `http://127.0.0.1:9/${region}`, checkFrequency: 0.5, checkRegionOverride: region, downConfirmationAttempts: 1 },
    });
    const checkId = made.body.data.id as string;
    const node = await connect(token, 5_000); // this node's clock runs 5 s ahead
    node.send({ type: 'hello', version: 'test', epoch: 'epoch-1' });
    const welcome = await node.next('welcome');
    assert.deepEqual({ ...welcome, nodeId: 'x' }, { type: 'welcome', nodeId: 'x', region, epoch: 'epoch-1', seq: 0 });
    const assign = await node.next('assign');
    assert.equal(assign.reset, true);
    assert.deepEqual(assign.checks.map((c) => c.id), [checkId]);
    assert.equal(assign.checks[0]!.intervalMs, 30_000);

    const startedAt = Date.now() - 1000;
    node.send({ type: 'results', epoch: 'epoch-1', items: [{ seq: 1, checkId, result: ok(startedAt + node.skewMs) }] });
    const ack = await node.next('ack');
    assert.deepEqual(ack, { type: 'ack', epoch: 'epoch-1', seq: 1 });
    const rows = await history(checkId);
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!.region, region);
    assert.ok(Math.abs(Date.parse(rows[0]!.createdAt) - startedAt) < 1000, 'the node’s 5 s skew is taken out');
  });

  test('a replayed batch is acknowledged and recorded once', async () => {
    const p = await place();
    const startedAt = Date.now() - 500;
    await report(p, 1, ok(startedAt - 100));
    const items = [{ seq: 2, checkId: p.checkId, result: ok(startedAt) }];
    p.node.send({ type: 'results', epoch: 'epoch-1', items });
    await p.node.next('ack', (m) => m.seq === 2);
    p.node.send({ type: 'results', epoch: 'epoch-1', items: [{ seq: 1, checkId: p.checkId, result: ok(startedAt - 100) }, ...items] });
    await p.node.next('ack', (m) => m.seq === 2);
    assert.equal((await history(p.checkId)).length, 2, JSON.stringify(await history(p.checkId)));
    assert.equal((await server.app.store.nodes.cursor(p.nodeId)).seq, 2, 'the cursor is durable');
  });

  test('a late result goes into history but never moves the state backwards', async () => {
    const p = await place();
    await report(p, 1, ok(Date.now()));
    assert.equal(await status(p.checkId), 'up');
    // A failure from before the newest result: history only (and no peer is asked for it).
    await report(p, 2, down(Date.now() - 60_000));
    assert.equal((await history(p.checkId)).filter((r) => r.status === 'down').length, 1);
    assert.equal(await status(p.checkId), 'up');
  });

  test('a fresh failure from the node is re-checked by the central; both results are kept', async () => {
    const p = await place();
    await report(p, 1, ok(Date.now() - 1000));
    await report(p, 2, down(Date.now()));
    const s = (await server.request('GET', '/v1/public/checks/status')).body.data.find((c: { id: string }) => c.id === p.checkId);
    // Port 9 on loopback refuses: the central agrees, so the check is confirmed down.
    assert.deepEqual(s.regions, { primary: p.region, peer: 'vps-eu-1', regionsTotal: 2, regionsDown: 2, confirmedDown: true });
    assert.equal(s.status, 'offline');
    const regions = (await history(p.checkId)).slice(0, 2).map((r) => r.region).sort();
    assert.deepEqual(regions, ['vps-eu-1', p.region]);
  });

  test('the clock offset and figures reach vigil node list; an offset over 2 s is flagged', async () => {
    const p = await place({ skewMs: 5_000 });
    const listed = await (async () => {
      for (let i = 0; i < 50; i++) {
        const n = (await registry.list()).find((x) => x.id === p.nodeId)!;
        if (n.connected && n.clockOffsetMs !== null) return n;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error('never listed');
    })();
    assert.ok(Math.abs(listed.clockOffsetMs! - 5000) < 500, `offset ${listed.clockOffsetMs}`);
    assert.equal(listed.clockWarning, true);
    assert.equal(listed.assignedChecks, 1);
    assert.equal(listed.version, 'test');
  });

  test('central changes reach the node at once: a pause unassigns, a resume assigns and runs it now', async () => {
    const p = await place();
    await server.request('POST', `/v1/public/checks/${p.checkId}/toggle`, { body: { disabled: true } });
    assert.deepEqual((await p.node.next('unassign')).ids, [p.checkId]);
    await server.request('POST', `/v1/public/checks/${p.checkId}/toggle`, { body: { disabled: false } });
    const assign = await p.node.next('assign');
    assert.deepEqual(assign.checks.map((c) => c.id), [p.checkId]);
    assert.deepEqual(assign.runNow, [p.checkId], JSON.stringify(assign));
  });

  test('a new outbox epoch starts its sequence again', async () => {
    const p = await place();
    await report(p, 1, ok(Date.now()));
    const again = await connect(p.token);
    assert.equal(await p.node.closed, 4000, 'the older connection of the same node is replaced');
    again.send({ type: 'hello', version: 'test', epoch: 'epoch-2' });
    const welcome = await again.next('welcome');
    assert.equal(welcome.epoch, 'epoch-2');
    assert.equal(welcome.seq, 0, 'epoch-1 had reached 1');
  });

  test('a failure below the threshold asks the node for an immediate recheck', async () => {
    const p = await place();
    const patched = await server.request('PATCH', `/v1/public/checks/${p.checkId}`, { body: { downConfirmationAttempts: 3 } });
    assert.equal(patched.status, 200);
    assert.deepEqual((await p.node.next('assign', (m) => !m.reset)).runNow, [p.checkId], 'a behaviour change runs the check at once');
    const now = Date.now();
    // Up, then one failure: below the threshold of 3.
    p.node.send({ type: 'results', epoch: 'epoch-1', items: [{ seq: 1, checkId: p.checkId, result: ok(now) }, { seq: 2, checkId: p.checkId, result: down(now + 1) }] });
    assert.equal((await p.node.next('run')).id, p.checkId);
  });
});
