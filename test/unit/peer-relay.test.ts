import { test } from 'node:test';
import assert from 'node:assert/strict';
import { relayPeerRechecks } from '../../src/cluster/peer-relay.js';
import { ManualClock } from '../../src/domain/clock.js';
import type { ProbeResult, ProbeTask } from '../../src/domain/probe-types.js';
import { createLogger } from '../../src/log.js';
import { NodeSessions } from '../../src/nodes/node-sessions.js';
import { PeerRechecks } from '../../src/nodes/peer-rechecks.js';
import type { CentralMessage } from '../../src/nodes/protocol.js';
import { InProcessBus } from '../../src/store/change-bus.js';

/*
 * Several centrals: a failure seen from a central's own region is re-checked by a node of
 * another region even when that node is connected to another central (the change bus carries
 * the ask and the answer).
 */

const T = Date.UTC(2026, 10, 27, 11);
const CENTRAL = 'vps-eu-1';
const EDGE = 'vps-us-1';
const task: ProbeTask = {
  type: 'website', url: 'https://example.com/', method: 'GET', headers: {}, body: null, expectedStatusCodes: [200], responseValidation: null,
  cacheControlNoCache: false, pingPackets: 1, timeoutMs: 10_000, refusePrivate: null,
};
const down: ProbeResult = { ok: false, statusCode: 500, responseTime: 12, timing: null, error: 'HTTP 500', snippet: 'x'.repeat(4_096), ssl: null, location: null, startedAt: T };

function central(bus: InProcessBus, name: string, elsewhere: () => string[]) {
  const clock = new ManualClock(T);
  const sessions = new NodeSessions({ clock, log: createLogger('silent') });
  const dispatcher = { run: () => assert.fail('the central does not probe a re-check of its own region') };
  let peers: PeerRechecks | null = null;
  const ask = relayPeerRechecks(bus, name, (nodeId, t) => peers!.recheckOn(nodeId, t));
  peers = new PeerRechecks({ sessions, dispatcher, region: CENTRAL, clock, elsewhere: { nodes: elsewhere, ask } });
  return { sessions, peers };
}

test('a failure seen from the central’s region is re-checked by a node connected to another central', async () => {
  const bus = new InProcessBus();
  const a = central(bus, 'central-a', () => []);
  const b = central(bus, 'central-b', () => ['nod_a']);
  const frames: CentralMessage[] = [];
  a.sessions.open({ id: 'nod_a', name: 'edge', region: EDGE }, { send: (m) => void frames.push(m), close: () => {} });
  a.sessions.ready(a.sessions.get('nod_a')!, 'test');
  const verdict = b.peers.recheck(task, CENTRAL);
  const asked = await (async () => {
    for (let i = 0; i < 10; i++) {
      const m = frames.find((f) => f.type === 'recheck');
      if (m) return m;
      await new Promise((r) => setImmediate(r));
    }
    return undefined;
  })();
  assert.ok(asked?.type === 'recheck', 'central-a has its node probe it');
  assert.deepEqual(asked.task, task);
  a.peers.answered(a.sessions.get('nod_a')!, asked.rid, down);
  // Answered over the bus; the snippet goes when it would not fit in a notification (here it fits).
  assert.deepEqual(await verdict, { region: EDGE, result: down });
  bus.close();
});

test('no node of another region anywhere, or a task too large to send: no peer, at once', async () => {
  const bus = new InProcessBus();
  const none = central(bus, 'central-a', () => []);
  assert.equal(await none.peers.recheck(task, CENTRAL), null);
  const b = central(bus, 'central-b', () => ['nod_a']);
  assert.equal(await b.peers.recheck({ ...task, body: 'x'.repeat(10_000) }, CENTRAL), null);
  bus.close();
});
