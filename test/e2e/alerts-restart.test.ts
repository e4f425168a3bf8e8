import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { ManualClock } from '../../src/domain/clock.js';
import type { ProbeResult } from '../../src/domain/probe-types.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { ScriptedDispatcher } from '../helpers/scripted-dispatcher.js';
import { startReceiver, type Receiver } from '../helpers/fixtures/alerts-receiver.js';
import { assertCaTrusted } from '../helpers/fixtures/alerts-tls.js';
import { assertStatus, newAccount } from './util.js';
import type { WebhookThread } from '../../src/alerts/delivery/webhook-thread.js';

/**
 * A restart loses no pending delivery and sends none twice (issue 6), in process with a manual
 * clock; test/slow/alerts-restart-process.test.ts does it with the real server process.
 */

const ALL = ['checks:read', 'checks:write', 'checks:delete', 'alerts:read', 'alerts:write'];

/** The alerts module's delivery worker (private: only its state is read here). */
const deliveryWorker = (srv: TestServer) => (srv.app.alerts as unknown as { client: WebhookThread }).client;

describe('restart, in process', () => {
  const clock = new ManualClock(Date.UTC(2026, 5, 1, 12));
  const overrides = { plans: { pro: { minCheckIntervalMinutes: 0.05 } }, alerts: { retryBaseMs: 1000 } };
  let failing = false;
  const dispatcher = () => new ScriptedDispatcher((): Partial<ProbeResult> => (failing ? { ok: false } : { ok: true }), () => clock.now());
  const servers: TestServer[] = [];
  let receiver: Receiver | null = null;
  after(async () => {
    for (const s of servers) await s.app.stop().catch(() => {});
    await receiver?.close();
    if (servers[0]) rmSync(servers[0].dataDir, { recursive: true, force: true });
  });

  test('deliveries pending at shutdown are each delivered once after it; delivered ones never again', async () => {
    assertCaTrusted();
    // The receiver is down while the checks go down: every first attempt fails.
    const probe = await startReceiver();
    const port = probe.port;
    await probe.close();

    const first = await startServer(overrides, clock, { dispatcher: dispatcher(), autoTick: false });
    servers.push(first);
    assert.equal(deliveryWorker(first).running, false, 'no webhooks: no delivery worker at boot');
    const a = await newAccount(first, { tier: 'pro', scopes: ALL });
    for (const n of [1, 2]) {
      const res = await first.request('POST', '/v1/public/alerts/webhooks', { key: a.key, body: { name: `r${n}`, url: `https://127.0.0.1:${port}/r/${n}` } });
      assertStatus(res, 201);
    }
    const ids: string[] = [];
    for (const n of [1, 2, 3]) {
      const res = await first.request('POST', '/v1/public/checks', { key: a.key, body: { url: `http://127.0.0.1:1/c${n}`, checkFrequency: 0.05, downConfirmationAttempts: 1 } });
      ids.push(res.body.data.id);
    }
    first.app.engine.tick();
    await first.app.engine.idle();
    failing = true;
    clock.advance(3000);
    first.app.engine.tick();
    await first.app.engine.idle();
    await first.app.alerts.idle();
    const queued = await first.app.alerts.repos.deliveries.countByStatus();
    assert.deepEqual({ pending: queued.pending, delivered: queued.delivered }, { pending: 6, delivered: 0 }, 'six deliveries wait for a retry');
    await first.stop(true);

    receiver = await startReceiver(port);
    const second = await startServer(overrides, clock, { dispatcher: dispatcher(), autoTick: false, dataDir: first.dataDir });
    servers.push(second);
    assert.equal(deliveryWorker(second).running, true, 'webhooks: the worker starts with the server');
    clock.advance(1000);
    second.app.alerts.sender.wake();
    await receiver.waitFor(() => receiver!.received.length >= 6);
    await second.app.alerts.idle();
    await second.stop(true);

    const third = await startServer(overrides, clock, { dispatcher: dispatcher(), autoTick: false, dataDir: first.dataDir });
    servers.push(third);
    clock.advance(3_600_000);
    third.app.alerts.sender.wake();
    await third.app.alerts.idle();

    const got = receiver.received;
    assert.equal(got.length, 6, 'nothing sent twice, by the second start or the third');
    assert.equal(new Set(got.map((r) => r.headers['x-vigil-delivery'])).size, 6);
    assert.deepEqual(got.map((r) => `${r.path} ${r.json.check.id}`).sort(), ids.flatMap((id) => [`/r/1 ${id}`, `/r/2 ${id}`]).sort());
    assert.ok(got.every((r) => r.json.event === 'website_down'));
    const counts = await third.app.alerts.repos.deliveries.countByStatus();
    assert.deepEqual({ pending: counts.pending, sending: counts.sending, delivered: counts.delivered }, { pending: 0, sending: 0, delivered: 6 });
  });
});

describe('graceful stop with alerts just raised', () => {
  const clock = new ManualClock(Date.UTC(2026, 5, 1, 12));
  const servers: TestServer[] = [];
  after(async () => {
    for (const s of servers) await s.app.stop().catch(() => {});
    if (servers[0]) rmSync(servers[0].dataDir, { recursive: true, force: true });
  });

  test('every event handed to the pipeline before a stop is a durable delivery after it', async () => {
    const first = await startServer({}, clock, { dispatcher: new ScriptedDispatcher(), autoTick: false });
    servers.push(first);
    const a = await newAccount(first, { tier: 'pro', scopes: ALL });
    // Nothing listens on port 1: every attempt fails and the deliveries stay pending.
    assertStatus(await first.request('POST', '/v1/public/alerts/webhooks', { key: a.key, body: { name: 'r', url: 'https://127.0.0.1:1/hook' } }), 201);
    const created = await first.request('POST', '/v1/public/checks', { key: a.key, body: { url: 'http://127.0.0.1:1/' } });
    assertStatus(created, 201);
    const ref = { id: created.body.data.id as string, accountId: a.accountId };
    // A burst the pipeline routes over many turns of the event loop; the stop comes first.
    const burst = 20_000;
    for (let i = 0; i < burst; i++) {
      first.app.alerts.handle(ref, {
        type: 'website_down', at: clock.now(), previousStatus: 'up', status: 'down', error: 'HTTP 500', statusCode: 500,
        responseTime: 12, regions: { primary: 'local', peer: null, regionsTotal: 1, regionsDown: 1, confirmedDown: false }, ssl: null,
      });
    }
    await first.stop(true);

    const second = await startServer({}, clock, { dispatcher: new ScriptedDispatcher(), autoTick: false, dataDir: first.dataDir });
    servers.push(second);
    const counts = await second.app.alerts.repos.deliveries.countByStatus();
    assert.equal(counts.pending + counts.delivered + counts.failed, burst, 'no event lost in the stop');
  });
});
