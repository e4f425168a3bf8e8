import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ManualClock } from '../../src/domain/clock.js';
import type { ProbeResult } from '../../src/domain/probe-types.js';
import { send, startServer, type TestServer } from '../helpers/server.js';
import { ScriptedDispatcher } from '../helpers/scripted-dispatcher.js';
import { startReceiver, waitFor, type Receiver } from '../helpers/fixtures/alerts-receiver.js';
import { assertCaTrusted, CA_FILE } from '../helpers/fixtures/alerts-tls.js';
import { assertStatus, newAccount } from './util.js';
import type { WebhookThread } from '../../src/alerts/delivery/webhook-thread.js';

/**
 * A restart loses no pending delivery and sends none twice (issue 6): first in-process with a
 * manual clock, then with the real server process (`vigil serve`), real probes against a local
 * target, and the receiver trusted through NODE_EXTRA_CA_CERTS given to that process alone.
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
    const a = newAccount(first, { tier: 'pro', scopes: ALL });
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
    const queued = first.app.alerts.repos.deliveries.countByStatus();
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
    const counts = third.app.alerts.repos.deliveries.countByStatus();
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
    const a = newAccount(first, { tier: 'pro', scopes: ALL });
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
    const counts = second.app.alerts.repos.deliveries.countByStatus();
    assert.equal(counts.pending + counts.delivered + counts.failed, burst, 'no event lost in the stop');
  });
});

// The real server process

const CLI = fileURLToPath(new URL('../../src/cli.js', import.meta.url));
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

interface Serving {
  child: ChildProcess;
  output(): string;
  exited: Promise<number | null>;
}

function serve(configFile: string): Serving {
  const child = spawn(process.execPath, [CLI, 'serve', '--config', configFile], {
    cwd: ROOT,
    // The operator's way to trust a private CA; Node reads it at process start.
    env: { ...process.env, VIGIL_CONFIG: '', NODE_EXTRA_CA_CERTS: CA_FILE },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (out += d));
  const exited = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
  return { child, output: () => out, exited };
}

async function stopServe(s: Serving): Promise<void> {
  if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGTERM');
  assert.equal(await s.exited, 0, 'a graceful stop');
}

/** A probe target whose health the test switches. */
async function startTarget(): Promise<{ port: number; healthy: boolean; close(): Promise<void> }> {
  const t = { port: 0, healthy: true, close: () => new Promise<void>((r) => server.close(() => r())) };
  const server: Server = createServer((_req, res) => res.writeHead(t.healthy ? 200 : 500).end(t.healthy ? 'ok' : 'broken'));
  server.keepAliveTimeout = 100;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  t.port = (server.address() as AddressInfo).port;
  return t;
}

describe('restart, the real server process with real probes', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-alerts-restart-'));
  const running: Serving[] = [];
  after(async () => {
    for (const s of running) if (s.child.exitCode === null) s.child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  test('down then up delivers website_down and website_up once each; a pending delivery survives a restart and is sent once', { timeout: 90_000 }, async () => {
    const target = await startTarget();
    const receiver = await startReceiver();
    let accepting = true;
    receiver.respond = () => (accepting ? 200 : 503);
    try {
      const port = await new Promise<number>((resolve) => {
        const s = createServer().listen(0, '127.0.0.1', () => {
          const p = (s.address() as AddressInfo).port;
          s.close(() => resolve(p));
        });
      });
      const configFile = join(dir, 'config.json');
      writeFileSync(configFile, JSON.stringify({
        server: { host: '127.0.0.1', port },
        dataDir: join(dir, 'data'),
        logLevel: 'warn',
        plans: { pro: { minCheckIntervalMinutes: 0.05 } },
        alerts: { retryBaseMs: 2000 },
        rdap: { bootstrapUrl: null },
      }));
      const url = `http://127.0.0.1:${port}`;
      let server = serve(configFile);
      running.push(server);
      await waitFor(() => /Admin API key \(shown once, store it now\): (vigil_live_[0-9a-f]{64})/.test(server.output()), 30_000);
      const key = /(vigil_live_[0-9a-f]{64})/.exec(server.output())![1]!;
      const api = (method: string, path: string, body?: unknown) => send(url, key, method, path, { body });

      assertStatus(await api('POST', '/v1/public/alerts/webhooks', { name: 'receiver', url: receiver.url('/hook'), secret: 'restart-secret' }), 201);
      const created = await api('POST', '/v1/public/checks', { url: `http://127.0.0.1:${target.port}/`, name: 'Target', checkFrequency: 0.05, downConfirmationAttempts: 1 });
      assertStatus(created, 201);
      const id = created.body.data.id as string;
      const status = async () => (await api('GET', `/v1/public/checks/${id}`)).body.data.status as string;
      const waitStatus = async (want: string) => {
        for (;;) {
          if ((await status()) === want) return;
          await new Promise((r) => setTimeout(r, 100));
        }
      };
      const events = () => receiver.received.map((r) => r.headers['x-vigil-event']);

      await waitStatus('up');
      target.healthy = false;
      await receiver.waitFor(() => events().length === 1, 30_000);
      target.healthy = true;
      await receiver.waitFor(() => events().length === 2, 30_000);
      assert.deepEqual(events(), ['website_down', 'website_up']);

      // The receiver now fails; the next down is attempted once, then waits for its retry.
      accepting = false;
      target.healthy = false;
      await receiver.waitFor(() => events().length === 3, 30_000);
      await stopServe(server);
      accepting = true;
      server = serve(configFile);
      running.push(server);
      await receiver.waitFor(() => events().length === 4, 30_000);
      // Anything sent twice would arrive around now; give the sender a moment to misbehave.
      await new Promise((r) => setTimeout(r, 500));
      await stopServe(server);

      const byDelivery = new Map<string, number>();
      for (const r of receiver.received) {
        const d = String(r.headers['x-vigil-delivery']);
        byDelivery.set(d, (byDelivery.get(d) ?? 0) + 1);
      }
      const ids = [...byDelivery.keys()];
      assert.equal(ids.length, 3, 'three deliveries in all: down, up, and the down that waited out the restart');
      const retried = String(receiver.received[2]!.headers['x-vigil-delivery']);
      assert.equal(byDelivery.get(retried), 2, 'refused once (503), acknowledged once after the restart');
      for (const d of ids.filter((x) => x !== retried)) assert.equal(byDelivery.get(d), 1, 'delivered before the restart: never again');
      assert.deepEqual(receiver.received.map((r) => r.headers['x-vigil-event']), ['website_down', 'website_up', 'website_down', 'website_down']);
    } finally {
      await receiver.close();
      await target.close();
    }
  });
});
