import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { send } from '../helpers/server.js';
import { startReceiver, waitFor } from '../helpers/fixtures/alerts-receiver.js';
import { CA_FILE } from '../helpers/fixtures/alerts-tls.js';
import { assertStatus } from '../e2e/util.js';

/**
 * A restart loses no pending delivery and sends none twice (issue 6), with the real server
 * process (`vigil serve`), real probes against a local target, and the receiver trusted through
 * NODE_EXTRA_CA_CERTS given to that process alone.
 */

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

/** Polls `condition` every 100 ms, for at most 30 s. */
async function waitUntil(condition: () => Promise<boolean>, what: string): Promise<void> {
  for (let attempt = 0; attempt < 300; attempt++) {
    if (await condition()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.fail(`timed out waiting for ${what}`);
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
      const waitStatus = (want: string) => waitUntil(async () => (await status()) === want, `status ${want}`);
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
      // Nothing is left to send once no delivery is pending (a delivery being sent counts as pending).
      const listed = async (status: string) => (await api('GET', `/v1/public/alerts/deliveries?status=${status}`)).body.data as unknown[];
      await waitUntil(async () => (await listed('pending')).length === 0 && (await listed('delivered')).length === 3, 'every delivery to be delivered');
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
