import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { ManualClock } from '../../src/domain/clock.js';
import type { AlertEvent } from '../../src/domain/events.js';
import type { ProbeResult } from '../../src/domain/probe-types.js';
import { OUTBOX_GRACE_MS } from '../../src/alerts/alert-pipeline.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { ScriptedDispatcher } from '../helpers/scripted-dispatcher.js';
import { startReceiver, type Receiver } from '../helpers/fixtures/alerts-receiver.js';
import { assertCaTrusted } from '../helpers/fixtures/alerts-tls.js';
import { createFastCheck, createWebhook, wheelRound } from '../helpers/alerts-e2e.js';
import { newAccount } from './util.js';

/**
 * The alert outbox (issue 26: alerts exactly once): a state change's events are committed with
 * it, so a server that stops (or dies) after the commit and before its pipeline routed them
 * leaves them behind, and the sweep of the next start routes them: delivered once to a real
 * local receiver. Routing one event twice (a second central, a late sweep) queues it once.
 * test/slow/alerts-centrals-postgres.test.ts shows the same across two centrals.
 */

const ALL = ['checks:read', 'checks:write', 'checks:delete', 'alerts:read', 'alerts:write'];

describe('an event committed with its state change and never routed', () => {
  const clock = new ManualClock(Date.UTC(2026, 5, 1, 12));
  const overrides = { plans: { pro: { minCheckIntervalMinutes: 0.05 } }, alerts: { retryBaseMs: 1000 } };
  let failing = false;
  const dispatcher = () => new ScriptedDispatcher((): Partial<ProbeResult> => ({ ok: !failing }), () => clock.now());
  const servers: TestServer[] = [];
  let receiver: Receiver;
  after(async () => {
    for (const s of servers) await s.app.stop().catch(() => {});
    await receiver?.close();
    if (servers[0]) rmSync(servers[0].dataDir, { recursive: true, force: true });
  });

  test('is routed by the sweep after a restart and delivered once; routing it again queues nothing', async () => {
    assertCaTrusted();
    receiver = await startReceiver();
    const first = await startServer(overrides, clock, { dispatcher: dispatcher(), autoTick: false });
    servers.push(first);
    const a = await newAccount(first, { tier: 'pro', scopes: ALL });
    await createWebhook(first, a.key, { url: receiver.url('/outbox'), events: ['website_down', 'website_up'] });
    const checkId = await createFastCheck(first, a.key, 'http://127.0.0.1:1/outbox');
    await wheelRound(first, clock, 0);

    // This server's pipeline never routes again (as if it died right after the commit).
    const unrouted: Array<{ event: AlertEvent; outboxId: string | null }> = [];
    first.app.alerts.pipeline.handle = (_ref, event, outboxId = null) => void unrouted.push({ event, outboxId });
    failing = true;
    await wheelRound(first, clock, 3_000);
    await first.app.recorder.idle();
    assert.deepEqual(unrouted.map((u) => u.event.type), ['website_down']);
    const kept = await first.app.store.alerts.outbox.due(clock.now(), 10);
    assert.deepEqual(kept.map((e) => [e.id, e.checkId, e.event.type]), [[unrouted[0]!.outboxId, checkId, 'website_down']], 'kept with the state change');
    assert.equal((await first.app.store.checks.byId(checkId))!.status, 'down');
    await first.stop(true);
    assert.equal(receiver.received.length, 0);

    clock.advance(OUTBOX_GRACE_MS);
    const second = await startServer(overrides, clock, { dispatcher: dispatcher(), autoTick: false, dataDir: first.dataDir });
    servers.push(second);
    // The sweep runs as the server starts.
    await receiver.waitFor(() => receiver.received.length >= 1);
    await second.app.alerts.idle();
    assert.deepEqual(receiver.received.map((r) => [r.json.event, r.json.check.id]), [['website_down', checkId]]);
    assert.deepEqual(await second.app.store.alerts.outbox.due(clock.now(), 10), [], 'claimed by the alerts write that queued it');

    // The same event routed again (another central, a sweep that read it before the claim): nothing more is queued.
    second.app.alerts.pipeline.handle({ id: checkId, accountId: a.accountId }, kept[0]!.event, kept[0]!.id);
    await second.app.alerts.idle();
    assert.equal(await second.app.alerts.pipeline.sweep(), 0, 'nothing left to sweep');
    assert.equal((await second.app.alerts.repos.deliveries.forCheck(checkId)).length, 1);

    // The recovery goes the ordinary way: routed at once by this server, once.
    failing = false;
    await wheelRound(second, clock, 3_000);
    await receiver.waitFor(() => receiver.received.length >= 2);
    await second.app.alerts.idle();
    assert.deepEqual(receiver.received.map((r) => r.json.event), ['website_down', 'website_up']);
    assert.deepEqual(await second.app.store.alerts.outbox.due(clock.now() + OUTBOX_GRACE_MS, 10), []);
  });
});
