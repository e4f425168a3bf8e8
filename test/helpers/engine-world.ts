import type { TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { ManualClock } from '../../src/domain/clock.js';
import { startServer } from './server.js';
import { ScriptedDispatcher } from './scripted-dispatcher.js';

/**
 * One server, one check (probed every 3 s, down after two failures) and a target whose health
 * the test switches: every test starts from its own, so any one runs alone.
 */
export async function engineWorld(t: TestContext) {
  const clock = new ManualClock(Date.UTC(2026, 5, 1, 12));
  const target = { healthy: true };
  const dispatcher = new ScriptedDispatcher(() => (target.healthy ? { ok: true } : { ok: false }), () => clock.now());
  const srv = await startServer(
    { plans: { pro: { minCheckIntervalMinutes: 0.05 } }, rateLimits: { statusPerKeyPerMinute: 1000, statusPerAccountPerMinute: 1000 } },
    clock,
    { dispatcher, autoTick: false },
  );
  t.after(() => srv.stop());
  const res = await srv.request('POST', '/v1/public/checks', {
    body: { url: 'http://127.0.0.1:1/', checkFrequency: 0.05, downConfirmationAttempts: 2 },
  });
  assert.equal(res.status, 201);
  const id = res.body.data.id as string;
  const tick = async () => {
    srv.app.engine.tick();
    await srv.app.engine.idle();
  };
  return {
    clock,
    target,
    dispatcher,
    srv,
    id,
    tick,
    /** The next probe, one interval on. */
    next: async () => {
      clock.advance(3000);
      await tick();
    },
    get: async () => (await srv.request('GET', `/v1/public/checks/${id}`)).body.data,
    statusOf: async (etag?: string) => srv.request('GET', '/v1/public/checks/status', { headers: etag ? { 'if-none-match': etag } : {} }),
  };
}

