import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../src/domain/clock.js';
import type { ProbeResult } from '../../src/domain/probe-types.js';
import { startServer } from '../helpers/server.js';
import { ScriptedDispatcher } from '../helpers/scripted-dispatcher.js';

/** A server whose one check's probe runs until the test lets it answer. */
async function heldProbe(t: import('node:test').TestContext) {
  const clock = new ManualClock(Date.UTC(2026, 5, 1, 12));
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => { release = resolve; });
  const dispatcher = new ScriptedDispatcher(() => ({ ok: true }), () => clock.now());
  const answer = dispatcher.run.bind(dispatcher);
  let running = 0;
  dispatcher.run = async (task): Promise<ProbeResult> => {
    running++;
    await held;
    return answer(task);
  };
  const srv = await startServer({ plans: { pro: { minCheckIntervalMinutes: 0.05 } } }, clock, { dispatcher, autoTick: false });
  t.after(async () => {
    release();
    await srv.stop();
  });
  const res = await srv.request('POST', '/v1/public/checks', { body: { url: 'http://127.0.0.1:1/', checkFrequency: 0.05 } });
  assert.equal(res.status, 201);
  srv.app.engine.tick();
  assert.equal(running, 1, 'the probe is running');
  return { srv, release, id: res.body.data.id as string };
}

// A grace of ten minutes: had stop waited it out rather than waking on the probe settling, the
// test would run into its own timeout.
test('Engine.stop waits for a running probe, and returns as soon as it settles', { timeout: 60_000 }, async (t) => {
  const { srv, release } = await heldProbe(t);
  let stopped = false;
  const stopping = srv.app.engine.stop(600_000).then(() => { stopped = true; });
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(stopped, false, 'still waiting for the probe');
  release();
  await stopping;
});

test('Engine.stop gives up on a probe that outlasts the grace', { timeout: 60_000 }, async (t) => {
  const { srv } = await heldProbe(t);
  // The probe is never released here: stop returns (before the test's timeout) only by giving up on it.
  await srv.app.engine.stop(200);
});
