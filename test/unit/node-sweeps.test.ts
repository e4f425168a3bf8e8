import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig, resolveConfig } from '../../src/config.js';
import { ManualClock } from '../../src/domain/clock.js';
import { createLogger } from '../../src/log.js';
import { nodeSweeps, type NodeSweepsDeps } from '../../src/nodes/node-sweeps.js';
import { NodeSessions } from '../../src/nodes/node-sessions.js';
import type { CentralMessage } from '../../src/nodes/protocol.js';
import { JobRunner } from '../../src/util/job-runner.js';
import { FakeTimers } from '../helpers/fake-timers.js';

/**
 * The hub's sweeps on a central no node has connected to: no timer at all (issue 36 item 6).
 * A node connecting wakes them at their own cadence: pings, saved figures, revocations.
 */
function world() {
  const clock = new ManualClock(1_000_000);
  const timers = new FakeTimers(clock);
  const log = createLogger('silent');
  const config = resolveConfig(loadConfig({ warn: () => {} }), 8080);
  const sessions = new NodeSessions({ clock, log });
  const saved: unknown[] = [];
  const revoked = new Set<string>();
  const deps = {
    sessions,
    assignment: { owned: () => new Map(), seenElsewhere: () => {} },
    writer: { submit: (w: unknown) => saved.push(w) },
    nodes: { revokedAmong: async (ids: string[]) => ids.filter((id) => revoked.has(id)), connectedSince: async () => [] },
    shared: false, config, clock, log,
  } as unknown as NodeSweepsDeps;
  const jobs = new JobRunner({ clock, timers, log });
  for (const job of nodeSweeps(deps)) jobs.add(job);
  return { clock, timers, jobs, sessions, saved, revoked, config };
}

test('with no node connected the node sweeps hold no timer; a node connecting wakes each at its cadence', async () => {
  const w = world();
  w.jobs.start();
  await w.timers.advance(60_000);
  assert.equal(w.timers.count, 0, 'asleep: nothing armed');
  const runs = () => Object.fromEntries(w.jobs.readings().map((r) => [r.name, r.runs]));
  const before = runs();

  const sent: CentralMessage[] = [];
  let closed: string | null = null;
  w.sessions.open({ id: 'nod_1', name: 'one', region: 'eu' }, { send: (m) => sent.push(m), close: (_code, reason) => (closed = reason) });
  w.sessions.ready(w.sessions.get('nod_1')!, '1.0.0');
  sent.length = 0;
  await w.timers.advance(w.config.nodes.pingMs);
  assert.ok(sent.some((m) => m.type === 'ping'), 'pinged a ping interval after connecting');
  assert.ok(w.saved.length > 0, 'its figures saved');
  assert.ok(runs()['node-revocations']! > before['node-revocations']!);

  w.revoked.add('nod_1');
  await w.timers.advance(1_000);
  assert.equal(closed, 'node revoked');
});

test('once every node is gone the ping and revocation sweeps sleep again; the figures go on being saved', async () => {
  const w = world();
  w.jobs.start();
  w.sessions.open({ id: 'nod_1', name: 'one', region: 'eu' }, { send: () => {}, close: () => {} });
  await w.timers.advance(w.config.nodes.pingMs);
  w.sessions.closed(w.sessions.get('nod_1')!);
  await w.timers.advance(w.config.nodes.pingMs + 2_000);
  const pings = w.jobs.readings().find((r) => r.name === 'node-ping')!.runs;
  const saved = w.saved.length;
  await w.timers.advance(60_000);
  assert.equal(w.jobs.readings().find((r) => r.name === 'node-ping')!.runs, pings, 'ping sweep asleep');
  assert.ok(w.saved.length > saved, 'a known node still has its figures saved (it shows as gone)');
});
