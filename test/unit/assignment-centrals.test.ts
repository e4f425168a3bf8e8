import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Assignment, type AssignmentDeps } from '../../src/nodes/assignment.js';
import type { PrivateRefusal } from '../../src/domain/outbound-policy.js';
import { NodeSessions } from '../../src/nodes/node-sessions.js';
import type { CentralMessage } from '../../src/nodes/protocol.js';
import { ownerOf } from '../../src/nodes/rendezvous.js';
import { ManualClock } from '../../src/domain/clock.js';
import { InProcessBus } from '../../src/store/change-bus.js';
import { relayRunNow } from '../../src/cluster/relay.js';
import type { Check } from '../../src/domain/records.js';
import { DEFAULT_SETTINGS } from '../../src/core/check-settings.js';
import { loadConfig, resolveConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';

/*
 * Several centrals (docs/high-availability.md): a region's nodes may be connected to different
 * centrals. Each central hashes a region's checks among all of its nodes, wherever connected,
 * gives its own nodes their share, and counts the region lit while a node of it is connected to
 * any central.
 */

const T = Date.UTC(2026, 10, 27, 10);
const EDGE = 'vps-us-1';
const FAILOVER_MS = 60_000;

function check(id: string, region: string | null): Check {
  return {
    ...DEFAULT_SETTINGS, name: id, url: `https://${id}.example.com/`, type: 'website', regionOverride: region,
    id, seq: 1, accountId: 'acc_1', disabled: false, disabledReason: null, maintenance: false, maintenanceUntil: null, windowMaintenance: false, heartbeatToken: null,
    status: 'pending', consecutiveFailures: 0, degraded: false, lastChecked: null, lastResponseTime: null, lastStatusCode: null,
    lastError: null, lastStatusChange: null, probesTotal: 0, probesUp: 0, ssl: null, domain: null, regions: null,
    errorAlerted: false, sslAlerts: null, createdAt: T, updatedAt: T,
  } as Check;
}

function world(runElsewhere?: (checkId: string) => void, outbound: AssignmentDeps['outbound'] = { knownFor: () => null, forAccount: async () => null }) {
  const clock = new ManualClock(T);
  const config = resolveConfig(loadConfig({ warn: () => {}, overrides: { region: 'vps-eu-1', nodes: { failoverMs: FAILOVER_MS } } }), 8080);
  const sessions = new NodeSessions({ clock, log: createLogger('silent') });
  const observers: Array<{ checkSaved(c: Check, runNow: boolean): void }> = [];
  const assignment = new Assignment({
    sessions, nodes: { regions: async () => [{ region: EDGE, nodes: 2 }] }, checks: { observe: (o) => void observers.push(o) }, config, clock, runElsewhere, outbound,
  });
  const frames = new Map<string, CentralMessage[]>();
  const connect = (id: string) => {
    frames.set(id, []);
    sessions.open({ id, name: id, region: EDGE }, { send: (m) => void frames.get(id)!.push(m), close: () => {} });
    sessions.ready(sessions.get(id)!, 'test');
    assignment.connected(id, EDGE);
  };
  /** The checks a node holds now, from the frames it was sent. */
  const holds = (id: string) => {
    const held = new Set<string>();
    for (const m of frames.get(id) ?? []) {
      if (m.type === 'assign') {
        if (m.reset) held.clear();
        for (const c of m.checks) held.add(c.id);
      } else if (m.type === 'unassign') for (const c of m.ids) held.delete(c);
    }
    return [...held].sort();
  };
  const ids = Array.from({ length: 40 }, (_, i) => `chk_${i}`);
  for (const id of ids) for (const o of observers) o.checkSaved(check(id, EDGE), false);
  const runs = (id: string) => (frames.get(id) ?? []).flatMap((m) => (m.type === 'run' ? [m.id] : []));
  return { clock, sessions, assignment, connect, holds, runs, ids, frames };
}

test('a region whose node is connected to another central is lit here: this central never probes it itself', () => {
  const w = world();
  w.clock.advance(FAILOVER_MS);
  assert.equal(w.assignment.probesHere(EDGE), true, 'no node anywhere for failoverMs: dark');
  w.assignment.seenElsewhere([{ id: 'nod_b', region: EDGE, lastSeenAt: w.clock.now() }]);
  assert.equal(w.assignment.probesHere(EDGE), false, 'lit again as soon as the store shows it connected elsewhere');
  for (let i = 0; i < 10; i++) {
    w.clock.advance(FAILOVER_MS / 2);
    w.assignment.seenElsewhere([{ id: 'nod_b', region: EDGE, lastSeenAt: w.clock.now() }]);
    assert.equal(w.assignment.probesHere(EDGE), false);
  }
  // The node is gone from the store (its central wrote it disconnected, or stopped writing): dark after failoverMs.
  w.assignment.seenElsewhere([]);
  w.clock.advance(FAILOVER_MS - 1);
  assert.equal(w.assignment.probesHere(EDGE), false);
  w.clock.advance(1);
  assert.equal(w.assignment.probesHere(EDGE), true);
});

test('nodes of one region on two centrals share its checks by one hash: each check goes to one node', async () => {
  const w = world();
  w.connect('nod_a');
  assert.deepEqual(w.holds('nod_a'), [...w.ids].sort(), 'alone, the node here takes every check');
  w.assignment.seenElsewhere([{ id: 'nod_b', region: EDGE, lastSeenAt: w.clock.now() }]);
  const mine = w.ids.filter((id) => ownerOf(id, ['nod_a', 'nod_b']) === 'nod_a').sort();
  assert.ok(mine.length > 0 && mine.length < w.ids.length);
  assert.deepEqual(w.holds('nod_a'), mine, 'the other central’s node takes its share off this one');
  const regions = await w.assignment.regions();
  assert.deepEqual(regions.find((r) => r.id === EDGE), { id: EDGE, nodes: 2, connected: 2, online: true });
  w.assignment.seenElsewhere([]);
  assert.deepEqual(w.holds('nod_a'), [...w.ids].sort(), 'and gives it back when it leaves');
});

test('a node that left this central for another counts there; the store’s stale word of this central does not', () => {
  const w = world();
  w.connect('nod_a');
  const node = w.sessions.get('nod_a')!;
  w.clock.advance(1_000);
  node.lastSeenAt = w.clock.now();
  w.sessions.closed(node);
  w.assignment.disconnected(EDGE);
  // What this central last wrote of it (heard from then): not connected elsewhere.
  w.assignment.seenElsewhere([{ id: 'nod_a', region: EDGE, lastSeenAt: node.lastSeenAt }]);
  w.clock.advance(FAILOVER_MS);
  assert.equal(w.assignment.probesHere(EDGE), true);
  // Another central heard from it later: it is there.
  w.assignment.seenElsewhere([{ id: 'nod_a', region: EDGE, lastSeenAt: w.clock.now() }]);
  assert.equal(w.assignment.probesHere(EDGE), false);
});

test('an immediate re-check the owner asks for reaches the node on the other central', async () => {
  const bus = new InProcessBus();
  let a: ReturnType<typeof world> | null = null;
  let b: ReturnType<typeof world> | null = null;
  a = world(relayRunNow(bus, 'central-a', (id) => a!.assignment.runHere(id)));
  b = world(relayRunNow(bus, 'central-b', (id) => b!.assignment.runHere(id)));
  a.connect('nod_a');
  b.assignment.seenElsewhere([{ id: 'nod_a', region: EDGE, lastSeenAt: b.clock.now() }]);
  b.assignment.runNow('chk_7');
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(a.runs('nod_a'), ['chk_7'], 'central-a has its node run it');
  a.assignment.runNow('chk_8');
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(a.runs('nod_a'), ['chk_7', 'chk_8'], 'a node connected here is asked directly, once');
  bus.close();
});

test('a check reaches its node with its account’s outbound rule, once a store that answers later has said it', async () => {
  let known: PrivateRefusal | null | undefined;
  let answer!: () => void;
  const asked = new Promise<void>((r) => (answer = r)).then((): PrivateRefusal => (known = 'signup'));
  const w = world(undefined, { knownFor: () => known, forAccount: () => asked });
  w.connect('nod_a');
  assert.deepEqual(w.holds('nod_a'), [], 'nothing is assigned before the rule is known (it could be given without it)');
  answer();
  await asked;
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(w.holds('nod_a'), [...w.ids].sort());
  const tasks = w.frames.get('nod_a')!.flatMap((m) => (m.type === 'assign' ? m.checks.map((c) => c.task) : []));
  assert.ok(tasks.length >= w.ids.length && tasks.every((t) => t.refusePrivate === 'signup'), 'every task carries the account’s rule');
});
