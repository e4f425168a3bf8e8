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

describe('node protocol (a hand-played node against a real server)', () => {
  let server: TestServer;
  let registry: NodeRegistry;
  let token = '';
  let checkId = '';
  let node: FakeNode;

  before(async () => {
    server = await startServer({ region: 'vps-eu-1', nodes: { pingMs: 200, failoverMs: 600_000 } });
    registry = new NodeRegistry(server.app.store.nodes, 'vps-eu-1', server.app.clock);
    token = registry.create({ region: 'vps-us-1' }).token;
    const made = await server.request('POST', '/v1/public/checks', {
      body: { url: 'http://127.0.0.1:9/', checkFrequency: 0.5, checkRegionOverride: 'vps-us-1', downConfirmationAttempts: 1 },
      headers: { 'Idempotency-Key': 'node-protocol-1' },
    });
    assert.equal(made.status, 201);
    checkId = made.body.data.id;
  });
  after(async () => {
    node?.ws.close();
    await server.stop();
  });

  const history = async () => (await server.request('GET', `/v1/public/checks/${checkId}/history?limit=100`)).body.data as Array<{ region: string; createdAt: string; status: string }>;

  test('hello first: anything else closes the connection', async () => {
    const rude = new FakeNode(server.url, token);
    await rude.opened();
    rude.send({ type: 'results', epoch: 'e', items: [] });
    assert.equal(await rude.closed, 1008);
  });

  test('welcome, then the region’s checks; results are recorded under the node’s region with corrected times and acknowledged', async () => {
    node = new FakeNode(server.url, token);
    node.skewMs = 5_000; // this node's clock runs 5 s ahead
    await node.opened();
    node.send({ type: 'hello', version: 'test', epoch: 'epoch-1' });
    const welcome = await node.next('welcome');
    assert.deepEqual({ ...welcome, nodeId: 'x' }, { type: 'welcome', nodeId: 'x', region: 'vps-us-1', epoch: 'epoch-1', seq: 0 });
    const assign = await node.next('assign');
    assert.equal(assign.reset, true);
    assert.deepEqual(assign.checks.map((c) => c.id), [checkId]);
    assert.equal(assign.checks[0]!.intervalMs, 30_000);

    const startedAt = Date.now() - 1000;
    node.send({ type: 'results', epoch: 'epoch-1', items: [{ seq: 1, checkId, result: ok(startedAt + node.skewMs) }] });
    const ack = await node.next('ack');
    assert.deepEqual(ack, { type: 'ack', epoch: 'epoch-1', seq: 1 });
    const rows = await history();
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!.region, 'vps-us-1');
    assert.ok(Math.abs(Date.parse(rows[0]!.createdAt) - startedAt) < 1000, 'the node’s 5 s skew is taken out');
  });

  test('a replayed batch is acknowledged and recorded once', async () => {
    const startedAt = Date.now() - 500;
    const items = [{ seq: 2, checkId, result: ok(startedAt + node.skewMs) }];
    node.send({ type: 'results', epoch: 'epoch-1', items });
    await node.next('ack', (m) => m.seq === 2);
    node.send({ type: 'results', epoch: 'epoch-1', items: [{ seq: 1, checkId, result: ok(startedAt) }, ...items] });
    await node.next('ack', (m) => m.seq === 2);
    assert.equal((await history()).length, 2, JSON.stringify(await history()));
    assert.equal(server.app.store.nodes.cursor(server.app.store.nodes.list()[0]!.id).seq, 2, 'the cursor is durable');
  });

  test('a late result goes into history but never moves the state backwards', async () => {
    const status = async () => (await server.request('GET', `/v1/public/checks/${checkId}`)).body.data.status as string;
    assert.equal(await status(), 'up');
    // A failure from before the newest result: history only (and no peer is asked for it).
    node.send({ type: 'results', epoch: 'epoch-1', items: [{ seq: 3, checkId, result: down(Date.now() - 60_000 + node.skewMs) }] });
    await node.next('ack', (m) => m.seq === 3);
    assert.equal((await history()).filter((r) => r.status === 'down').length, 1);
    assert.equal(await status(), 'up');
  });

  test('a fresh failure from the node is re-checked by the central; both results are kept', async () => {
    node.send({ type: 'results', epoch: 'epoch-1', items: [{ seq: 4, checkId, result: down(Date.now() + node.skewMs) }] });
    await node.next('ack', (m) => m.seq === 4);
    const s = (await server.request('GET', '/v1/public/checks/status')).body.data.find((c: { id: string }) => c.id === checkId);
    // Port 9 on loopback refuses: the central agrees, so the check is confirmed down.
    assert.deepEqual(s.regions, { primary: 'vps-us-1', peer: 'vps-eu-1', regionsTotal: 2, regionsDown: 2, confirmedDown: true });
    assert.equal(s.status, 'offline');
    const regions = (await history()).slice(0, 2).map((r) => r.region).sort();
    assert.deepEqual(regions, ['vps-eu-1', 'vps-us-1']);
  });

  test('the clock offset and figures reach vigil node list; an offset over 2 s is flagged', async () => {
    const listed = await (async () => {
      for (let i = 0; i < 50; i++) {
        const n = registry.list()[0]!;
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
    await server.request('POST', `/v1/public/checks/${checkId}/toggle`, { body: { disabled: true } });
    assert.deepEqual((await node.next('unassign')).ids, [checkId]);
    await server.request('POST', `/v1/public/checks/${checkId}/toggle`, { body: { disabled: false } });
    const assign = await node.next('assign');
    assert.deepEqual(assign.checks.map((c) => c.id), [checkId]);
    assert.deepEqual(assign.runNow, [checkId], JSON.stringify(assign));
  });

  test('a new outbox epoch starts its sequence again', async () => {
    const again = new FakeNode(server.url, token);
    await again.opened();
    assert.equal(await node.closed, 4000, 'the older connection of the same node is replaced');
    again.send({ type: 'hello', version: 'test', epoch: 'epoch-2' });
    const welcome = await again.next('welcome');
    assert.equal(welcome.epoch, 'epoch-2');
    assert.equal(welcome.seq, 0);
    node = again;
  });

  test('a failure below the threshold asks the node for an immediate recheck', async () => {
    const patched = await server.request('PATCH', `/v1/public/checks/${checkId}`, { body: { downConfirmationAttempts: 3 } });
    assert.equal(patched.status, 200);
    assert.deepEqual((await node.next('assign', (m) => !m.reset)).runNow, [checkId], 'a behaviour change runs the check at once');
    const now = Date.now();
    // Up again, then one failure: below the threshold of 3.
    node.send({ type: 'results', epoch: 'epoch-2', items: [{ seq: 1, checkId, result: ok(now) }, { seq: 2, checkId, result: down(now + 1) }] });
    assert.equal((await node.next('run')).id, checkId);
  });
});
